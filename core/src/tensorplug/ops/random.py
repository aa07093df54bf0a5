"""Random-number ops, public as ``tp.random``: uniform and normal samples from an explicit
integer seed (the same seed gives the same values on one backend)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from ..dtypes import as_dtype, default_float
from ..errors import DTypeError, ShapeError
from ..specs.creation import created_shape, random_dtype
from ..tensor import Tensor
from ._convert import caller

__all__ = ["normal", "uniform"]

_UNIFORM = caller("RandomUniform")
_NORMAL = caller("RandomNormal")


def _attrs(op: str, shape: int | Sequence[int], seed: Any, dtype: Any) -> dict[str, Any]:
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise DTypeError(f"{op}: seed must be an int, got {seed!r}; pass an explicit seed, e.g. "
                         f"tp.random.{op}((2, 3), seed=0).")
    try:
        dims = (operator.index(shape),) if hasattr(shape, "__index__") else tuple(
            operator.index(d) for d in shape)
    except TypeError:
        raise ShapeError(f"{op}: shape must be an int or a sequence of ints, got {shape!r}.") from None
    dims = created_shape(dims, op)
    dt = random_dtype(default_float if dtype is None else as_dtype(dtype), op)
    return {"shape": dims, "seed": operator.index(seed), "dtype": dt}


def uniform(shape: int | Sequence[int], *, seed: int, low: float = 0.0, high: float = 1.0,
            dtype: Any = None) -> Tensor:
    """Samples uniform in [low, high) of `shape` (float32 unless `dtype`), from `seed`."""
    attrs = _attrs("uniform", shape, seed, dtype)
    return _UNIFORM((), {**attrs, "low": float(low), "high": float(high)})


def normal(shape: int | Sequence[int], *, seed: int, mean: float = 0.0, stddev: float = 1.0,
           dtype: Any = None) -> Tensor:
    """Normal samples with `mean` and `stddev` of `shape` (float32 unless `dtype`), from `seed`."""
    attrs = _attrs("normal", shape, seed, dtype)
    return _NORMAL((), {**attrs, "mean": float(mean), "stddev": float(stddev)})
