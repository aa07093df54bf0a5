"""Random-number ops, public as ``tp.random``: uniform and normal samples from an explicit
integer seed (the same seed gives the same values on one backend) or, with JAX's argument order,
from a key (``key_samplers.py``: the same key gives the same values on every backend, and JAX's).
The two forms are told apart by the first argument: a key is a Tensor, a shape never is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import default_float
from tensorplug.errors import ArgumentError, DTypeError
from tensorplug.families._common.convert import caller
from tensorplug.families.creation import key_samplers
from tensorplug.families.creation.ops import new_dtype, new_shape
from tensorplug.families.creation.spec import random_dtype

__all__ = ["normal", "uniform"]

_UNIFORM = caller("RandomUniform")
_NORMAL = caller("RandomNormal")


def _attrs(op: str, shape: int | Sequence[int], seed: Any, dtype: Any) -> dict[str, Any]:
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise DTypeError(f"{op}: seed must be an int, got {seed!r}; pass an explicit seed, e.g. "
                         f"tp.random.{op}((2, 3), seed=0), or a key first: "
                         f"tp.random.{op}(tp.random.key(0), (2, 3)).")
    seed = valid.integer(seed, op, "seed")
    dims = new_shape(shape, op)
    dt = random_dtype(new_dtype(default_float if dtype is None else dtype, op), op)
    return {"shape": dims, "seed": seed, "dtype": dt}


def _no_seed(op: str, seed: Any, seed_only: dict[str, Any], defaults: tuple[float, float], fix: str) -> None:
    """Refuses, in the key form, a seed and the seed form's own arguments (unless at `defaults`)."""
    if seed is not None:
        raise ArgumentError(f"{op}: got a key and seed={valid.shown(seed)}; pass one of them: "
                            f"tp.random.{op}(key, shape) or tp.random.{op}(shape, seed=0).")
    values = tuple(seed_only.values())
    if any(type(v) is not float for v in values) or values != defaults:
        raise ArgumentError(f"{op}: {' and '.join(seed_only)} are the seed form's arguments; "
                            f"with a key, {fix}.")


def _no_key_arguments(op: str, shape: Any, bounds: bool) -> None:
    if type(shape) is not tuple or shape or bounds:
        raise ArgumentError(f"{op}: the shape comes first with a seed, and shape, minval and maxval "
                            f"after it are the key form's; call tp.random.{op}(shape, seed=0) or "
                            f"tp.random.{op}(tp.random.key(0), shape).")


def uniform(key_or_shape: Tensor | int | Sequence[int], shape: int | Sequence[int] = (), dtype: Any = None,
            minval: Any = 0.0, maxval: Any = 1.0, *, seed: Any = None, low: float = 0.0,
            high: float = 1.0) -> Tensor:
    """Samples uniform in [low, high) of shape `key_or_shape` (float32 unless `dtype`) from
    `seed`; or, given a key first, ``key_samplers.uniform(key, shape, dtype, minval, maxval)``."""
    if isinstance(key_or_shape, Tensor):
        _no_seed("uniform", seed, {"low": low, "high": high}, (0.0, 1.0), "pass minval and maxval")
        return key_samplers.uniform(key_or_shape, shape, dtype, minval, maxval)
    _no_key_arguments("uniform", shape, type(minval) is not float or type(maxval) is not float
                      or (minval, maxval) != (0.0, 1.0))
    attrs = _attrs("uniform", key_or_shape, seed, dtype)
    low, high = valid.number(low, "uniform", "low"), valid.number(high, "uniform", "high")
    return _UNIFORM((), {**attrs, "low": float(low), "high": float(high)})


def normal(key_or_shape: Tensor | int | Sequence[int], shape: int | Sequence[int] = (), dtype: Any = None,
           *, seed: Any = None, mean: float = 0.0, stddev: float = 1.0) -> Tensor:
    """Normal samples with `mean` and `stddev` of shape `key_or_shape` (float32 unless `dtype`)
    from `seed`; or, given a key first, standard normals as ``key_samplers.normal(key, shape, dtype)``."""
    if isinstance(key_or_shape, Tensor):
        _no_seed("normal", seed, {"mean": mean, "stddev": stddev}, (0.0, 1.0),
                 "scale the draw: mean + stddev * tp.random.normal(key, shape)")
        return key_samplers.normal(key_or_shape, shape, dtype)
    _no_key_arguments("normal", shape, False)
    attrs = _attrs("normal", key_or_shape, seed, dtype)
    mean, stddev = valid.number(mean, "normal", "mean"), valid.number(stddev, "normal", "stddev")
    return _NORMAL((), {**attrs, "mean": float(mean), "stddev": float(stddev)})
