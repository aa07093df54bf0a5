"""``tp.nn.dropout``: inverted dropout from an explicit integer seed, as ``tp.random`` takes
one (the same seed gives the same mask on one backend), or from a random key (the same key
gives the same mask on every backend, flax's with the same key)."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float32, float64
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families.activations.ops import real_float
from tensorplug.families.creation.key_samplers import bernoulli
from tensorplug.families.creation.keys import key_parts
from tensorplug.families.creation.random import uniform
from tensorplug.families.elementwise.ops import greater_equal, multiply, where

__all__ = ["dropout"]


def dropout(x: Any, rate: float, *, seed: int | None = None, key: Tensor | None = None,
            deterministic: bool = False) -> Tensor:
    """x with each element zeroed with probability `rate` and the kept ones scaled by
    1 / (1 - rate), so the expectation is x (inverted dropout, as flax's Dropout); x itself
    when `deterministic` or rate == 0. `rate` in [0, 1); the mask comes from `seed` (an int)
    or `key` (a ``tp.random.key``: ``tp.random.bernoulli(key, 1 - rate, x.shape)``, as flax):
    exactly one of them; the gradient flows through the kept elements, scaled alike."""
    x = real_float(x, "dropout")
    rate = float(valid.number(rate, "dropout", "rate"))
    if not 0.0 <= rate < 1.0:
        raise ShapeError(f"dropout: rate must be in [0, 1) (the probability of dropping an element), "
                         f"got {rate}; pass e.g. rate=0.1, or deterministic=True to keep every element.")
    if (seed is None) == (key is None):
        raise ArgumentError(f"dropout: pass exactly one of seed and key, got "
                            f"{'both' if key is not None else 'neither'}; e.g. tp.nn.dropout(x, 0.1, "
                            f"seed=0) or tp.nn.dropout(x, 0.1, key=tp.random.key(0)).")
    if key is None:
        valid.integer(seed, "dropout", "seed")
    else:
        key_parts(key, "dropout")
    if valid.flag(deterministic, "dropout", "deterministic") or rate == 0.0:
        return x
    if key is not None:
        return where(bernoulli(key, 1.0 - rate, x.shape), multiply(x, 1.0 / (1.0 - rate)), 0.0)
    samples = uniform(x.shape, seed=seed, dtype=float64 if x._dtype is float64 else float32)
    keep = greater_equal(samples, rate)  # P(keep) = 1 - rate
    return where(keep, multiply(x, 1.0 / (1.0 - rate)), 0.0)
