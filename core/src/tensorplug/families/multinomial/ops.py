"""``tp.random.categorical``: class indices drawn from logits, from a seed (kernel Multinomial)
or, with a key first and no seed, as ``jax.random.categorical`` (``creation/key_choices.py``)."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import uint32
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import caller, to_float
from tensorplug.families.creation import key_choices
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.multinomial.spec import multinomial_shape

__all__ = ["categorical"]

_MULTINOMIAL = caller("Multinomial")


def categorical(logits: Any, num_samples: Any = None, axis: int = -1, shape: Any = None, *,
                seed: int | None = None) -> Tensor:
    """With `seed`: `num_samples` int64 class indices drawn from softmax(logits) along the last
    axis of 1-d (classes,) or 2-d (batch, classes) logits: shape (num_samples,) or (batch,
    num_samples). Without: ``categorical(key, logits, axis=-1, shape=None)``, JAX's form."""
    op = "categorical"
    if seed is None:
        if not (isinstance(logits, Tensor) and logits.dtype == uint32):
            raise ArgumentError(f"{op}: pass a key first, tp.random.categorical(key, logits), or a seed, "
                                f"tp.random.categorical(logits, num_samples, seed=0); got no seed and "
                                f"{valid.shown(logits)} first.")
        return key_choices.categorical(logits, num_samples, axis, shape)
    if type(axis) is not int or axis != -1 or shape is not None:
        raise ArgumentError(f"{op}: axis and shape are the key form's arguments; with a seed call "
                            f"tp.random.categorical(logits, num_samples, seed=0).")
    seed = valid.integer(seed, op, "seed")
    n = valid.size(num_samples, op, "num_samples")
    x = to_float(logits)
    if x.dtype.is_complex:
        raise DTypeError(f"{op}: logits must be real, got {x.dtype.name}.")
    if x.ndim not in (1, 2):
        raise ShapeError(f"{op}: logits must be 1-d (classes,) or 2-d (batch, classes), got shape {x.shape}.")
    rows = x if x.ndim == 2 else reshape(x, (1, x.shape[0]))
    valid.checked_size(multinomial_shape(rows.shape, n, op), x._backend, op)  # (XLA aborts past int64)
    out = _MULTINOMIAL((rows,), {"num_samples": n, "seed": seed, "normalized": False})
    return out if x.ndim == 2 else reshape(out, (n,))
