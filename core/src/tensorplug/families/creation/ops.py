"""Creation ops: zeros, ones, full, the *_like family, arange, eye, linspace."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tensorplug.backends.devices import on_device as put
from tensorplug.backends.held_dtypes import check_held
from tensorplug.backends.lifecycle import active_backend
from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, default_complex, default_float, default_int, scalar_dtype
from tensorplug.errors import ShapeError
from tensorplug.families._common.convert import asarray, caller
from tensorplug.families.creation.spec import checked_range
from tensorplug.families.linspace.spec import linspace_dtype
from tensorplug.kernels.shape_rules import fitting_value

__all__ = ["zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
           "arange", "eye", "linspace"]

_FILL = caller("Fill")
_RANGE = caller("Range")
_EYE = caller("Eye")
_LINSPACE = caller("LinSpace")


def new_shape(value: Any, op: str, arg: str = "shape") -> tuple[int, ...]:
    """The shape of a tensor an op creates on the active backend: ``valid.shape`` then
    ``valid.checked_size``."""
    return valid.checked_size(valid.shape(value, op, arg), active_backend(), op)


def new_dtype(value: Any, op: str) -> DType:
    """The dtype of a tensor an op creates on the active backend: ``valid.dtype``, and one the
    backend holds (``check_held``)."""
    dt = valid.dtype(value, op)
    held = active_backend().dtypes
    if held is not None and dt not in held:
        check_held(active_backend(), dt, op)  # (raises)
    return dt


def on_device(t: Tensor, device: Any, op: str) -> Tensor:
    """`t` on `device` (``tensorplug.backends.devices.on_device``; imported late: devices imports ops)."""
    if device is None:
        return t
    return put(t, device, op)


def _fill(op: str, shape: int | Sequence[int], fill_value: Any, dtype: Any, device: Any) -> Tensor:
    dims = new_shape(shape, op)
    if not isinstance(fill_value, (bool, int, float, complex)):
        fill_value = valid.scalar(fill_value, op, "fill_value")
    dt = new_dtype(scalar_dtype(fill_value) if dtype is None else dtype, op)
    fitting_value(fill_value, dt, "fill_value", op)
    return on_device(_FILL((), {"shape": dims, "value": fill_value, "dtype": dt}), device, op)


def full(shape: int | Sequence[int], fill_value: bool | int | float | complex, *, dtype: Any = None,
         device: Any = None) -> Tensor:
    """A tensor of `shape` filled with `fill_value` (dtype from the value if not given), on
    `device` (a name from ``tp.devices()``; default: the backend's default device)."""
    return _fill("full", shape, fill_value, dtype, device)


def zeros(shape: int | Sequence[int], *, dtype: Any = None, device: Any = None) -> Tensor:
    """A tensor of `shape` filled with 0 (float32 unless `dtype` is given), on `device`."""
    return _fill("zeros", shape, 0, default_float if dtype is None else dtype, device)


def ones(shape: int | Sequence[int], *, dtype: Any = None, device: Any = None) -> Tensor:
    """A tensor of `shape` filled with 1 (float32 unless `dtype` is given), on `device`."""
    return _fill("ones", shape, 1, default_float if dtype is None else dtype, device)


def empty(shape: int | Sequence[int], *, dtype: Any = None, device: Any = None) -> Tensor:
    """Like zeros (tensors are immutable, so there is nothing to gain from garbage)."""
    return _fill("empty", shape, 0, default_float if dtype is None else dtype, device)


def full_like(x: Any, /, fill_value: bool | int | float | complex, *, dtype: Any = None,
              device: Any = None) -> Tensor:
    """A tensor of x's shape filled with `fill_value`, of x's dtype unless `dtype` is given, on
    `device` (default: the backend's default device)."""
    x = asarray(x)
    return _fill("full_like", x.shape, fill_value, x.dtype if dtype is None else dtype, device)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """A tensor of x's shape filled with 0, of x's dtype unless `dtype` is given."""
    return full_like(x, 0, dtype=dtype, device=device)


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """A tensor of x's shape filled with 1, of x's dtype unless `dtype` is given."""
    return full_like(x, 1, dtype=dtype, device=device)


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Like zeros_like (tensors are immutable, so there is nothing to gain from garbage)."""
    return full_like(x, 0, dtype=dtype, device=device)


def arange(start: int | float, /, stop: int | float | None = None, step: int | float = 1, *,
           dtype: Any = None, device: Any = None) -> Tensor:
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
    dt = new_dtype(dtype, "arange")
    n = checked_range(start, stop, step, dt, "arange")  # the Range spec's rule: refuses a zero step
    valid.checked_size((n,), active_backend(), "arange")
    return on_device(_RANGE((), {"start": start, "stop": stop, "step": step, "dtype": dt}), device, "arange")


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None,
        device: Any = None) -> Tensor:
    """Ones on the k-th diagonal of an n_rows x n_cols matrix."""
    n = valid.size(n_rows, "eye", "n_rows")
    m = n if n_cols is None else valid.size(n_cols, "eye", "n_cols")
    valid.checked_size((n, m), active_backend(), "eye")
    out = _EYE((), {"n_rows": n, "n_cols": m, "k": valid.integer(k, "eye", "k"),
                    "dtype": new_dtype(default_float if dtype is None else dtype, "eye")})
    return on_device(out, device, "eye")


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: Any = None, device: Any = None, endpoint: bool = True) -> Tensor:
    """`num` evenly spaced values from start to stop (included when endpoint), computed in
    double precision and rounded once to `dtype` (the default float, or the default complex for
    complex start or stop): the first value is start and the last stop, exactly."""
    op = "linspace"
    num = valid.size(num, op, "num")
    start, stop = (v if isinstance(v, complex) else valid.number(v, op, name)
                   for v, name in ((start, "start"), (stop, "stop")))
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    dt = new_dtype((default_complex if is_complex else default_float) if dtype is None else dtype, op)
    linspace_dtype(dt, is_complex, op)
    endpoint = valid.flag(endpoint, op, "endpoint")
    valid.checked_size((num,), active_backend(), op)
    attrs = {"start": start, "stop": stop, "num": num, "endpoint": endpoint, "dtype": dt}
    return on_device(_LINSPACE((), attrs), device, op)
