"""Random-number ops, public as ``tp.random``: uniform and normal samples from an explicit
integer seed (the same seed gives the same values on one backend)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import default_float
from tensorplug.errors import DTypeError
from tensorplug.families._common.convert import caller
from tensorplug.families.creation.ops import new_dtype, new_shape
from tensorplug.families.creation.spec import random_dtype

__all__ = ["normal", "uniform"]

_UNIFORM = caller("RandomUniform")
_NORMAL = caller("RandomNormal")


def _attrs(op: str, shape: int | Sequence[int], seed: Any, dtype: Any) -> dict[str, Any]:
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise DTypeError(f"{op}: seed must be an int, got {seed!r}; pass an explicit seed, e.g. "
                         f"tp.random.{op}((2, 3), seed=0).")
    seed = valid.integer(seed, op, "seed")
    dims = new_shape(shape, op)
    dt = random_dtype(new_dtype(default_float if dtype is None else dtype, op), op)
    return {"shape": dims, "seed": seed, "dtype": dt}


def uniform(shape: int | Sequence[int], *, seed: int, low: float = 0.0, high: float = 1.0,
            dtype: Any = None) -> Tensor:
    """Samples uniform in [low, high) of `shape` (float32 unless `dtype`), from `seed`."""
    attrs = _attrs("uniform", shape, seed, dtype)
    low, high = valid.number(low, "uniform", "low"), valid.number(high, "uniform", "high")
    return _UNIFORM((), {**attrs, "low": float(low), "high": float(high)})


def normal(shape: int | Sequence[int], *, seed: int, mean: float = 0.0, stddev: float = 1.0,
           dtype: Any = None) -> Tensor:
    """Normal samples with `mean` and `stddev` of `shape` (float32 unless `dtype`), from `seed`."""
    attrs = _attrs("normal", shape, seed, dtype)
    mean, stddev = valid.number(mean, "normal", "mean"), valid.number(stddev, "normal", "stddev")
    return _NORMAL((), {**attrs, "mean": float(mean), "stddev": float(stddev)})
