"""``tp.random.categorical``: class indices drawn from logits (kernel Multinomial)."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import caller, to_float
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.multinomial.spec import multinomial_shape

__all__ = ["categorical"]

_MULTINOMIAL = caller("Multinomial")


def categorical(logits: Any, num_samples: int, *, seed: int) -> Tensor:
    """`num_samples` int64 class indices drawn from softmax(logits) along the last axis of 1-d
    (classes,) or 2-d (batch, classes) logits: shape (num_samples,) or (batch, num_samples)."""
    op = "categorical"
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
