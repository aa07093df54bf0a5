"""Creation ops: zeros, ones, full, the *_like family, arange, eye, linspace."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .. import _validate as valid
from ..backend import active_backend
from ..dtypes import DType, default_float, default_int, scalar_dtype
from ..errors import ShapeError
from ..specs._rules import fitting_value
from ..specs.creation import checked_range
from ..tensor import Tensor
from ._convert import asarray, caller

__all__ = ["zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
           "arange", "eye", "linspace"]

_FILL = caller("Fill")
_RANGE = caller("Range")
_EYE = caller("Eye")


def _fill(op: str, shape: int | Sequence[int], fill_value: Any, dtype: Any) -> Tensor:
    dims = valid.new_shape(shape, op)
    if not isinstance(fill_value, (bool, int, float, complex)):
        fill_value = valid.scalar(fill_value, op, "fill_value")
    dt: DType = scalar_dtype(fill_value) if dtype is None else valid.dtype(dtype, op)
    fitting_value(fill_value, dt, "fill_value", op)
    return _FILL((), {"shape": dims, "value": fill_value, "dtype": dt})


def full(shape: int | Sequence[int], fill_value: bool | int | float | complex, dtype: Any = None) -> Tensor:
    """A tensor of `shape` filled with `fill_value` (dtype from the value if not given)."""
    return _fill("full", shape, fill_value, dtype)


def zeros(shape: int | Sequence[int], dtype: Any = None) -> Tensor:
    """A tensor of `shape` filled with 0 (float32 unless `dtype` is given)."""
    return _fill("zeros", shape, 0, default_float if dtype is None else dtype)


def ones(shape: int | Sequence[int], dtype: Any = None) -> Tensor:
    """A tensor of `shape` filled with 1 (float32 unless `dtype` is given)."""
    return _fill("ones", shape, 1, default_float if dtype is None else dtype)


def empty(shape: int | Sequence[int], dtype: Any = None) -> Tensor:
    """Like zeros (tensors are immutable, so there is nothing to gain from garbage)."""
    return _fill("empty", shape, 0, default_float if dtype is None else dtype)


def full_like(x: Any, fill_value: bool | int | float | complex, dtype: Any = None) -> Tensor:
    """A tensor of x's shape filled with `fill_value`, of x's dtype unless `dtype` is given."""
    x = asarray(x)
    return full(x.shape, fill_value, x.dtype if dtype is None else dtype)


def zeros_like(x: Any, dtype: Any = None) -> Tensor:
    """A tensor of x's shape filled with 0, of x's dtype unless `dtype` is given."""
    return full_like(x, 0, dtype)


def ones_like(x: Any, dtype: Any = None) -> Tensor:
    """A tensor of x's shape filled with 1, of x's dtype unless `dtype` is given."""
    return full_like(x, 1, dtype)


def empty_like(x: Any, dtype: Any = None) -> Tensor:
    """Like zeros_like (tensors are immutable, so there is nothing to gain from garbage)."""
    return zeros_like(x, dtype)


def arange(start: int | float, stop: int | float | None = None, step: int | float = 1,
           dtype: Any = None) -> Tensor:
    """Evenly spaced values in [start, stop); ``arange(n)`` counts from 0."""
    if stop is None:
        start, stop = 0, start
    start, stop, step = (valid.number(v, "arange", name)
                         for v, name in ((start, "start"), (stop, "stop"), (step, "step")))
    if not all(math.isfinite(v) for v in (start, stop, step)):
        raise ShapeError(f"arange: start, stop and step must be finite, got {start}, {stop}, {step}.")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, stop, step))
        dtype = default_float if is_float else default_int
    dt = valid.dtype(dtype, "arange")
    n = checked_range(start, stop, step, dt, "arange")  # the Range spec's rule: refuses a zero step
    valid.checked_size((n,), active_backend(), "arange")
    return _RANGE((), {"start": start, "stop": stop, "step": step, "dtype": dt})


def eye(n_rows: int, n_cols: int | None = None, *, k: int = 0, dtype: Any = None) -> Tensor:
    """Ones on the k-th diagonal of an n_rows x n_cols matrix."""
    n = valid.size(n_rows, "eye", "n_rows")
    m = n if n_cols is None else valid.size(n_cols, "eye", "n_cols")
    valid.checked_size((n, m), active_backend(), "eye")
    return _EYE((), {"n_rows": n, "n_cols": m, "k": valid.integer(k, "eye", "k"),
                     "dtype": valid.dtype(default_float if dtype is None else dtype, "eye")})


def linspace(start: float, stop: float, num: int, *, dtype: Any = None, endpoint: bool = True) -> Tensor:
    """`num` evenly spaced values from start to stop (included when endpoint)."""
    from .elementwise import add, multiply

    dt = valid.dtype(default_float if dtype is None else dtype, "linspace")
    num = valid.size(num, "linspace", "num")
    start = valid.number(start, "linspace", "start")
    stop = valid.number(stop, "linspace", "stop")
    valid.flag(endpoint, "linspace", "endpoint")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    return add(multiply(arange(0, num, dtype=dt), step), start).astype(dt)
