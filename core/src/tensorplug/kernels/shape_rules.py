"""Building blocks for kernel spec rules: broadcasting, axes, attribute validators.

The rules here (and the public rule functions of each family module: ``reshaped_shape`` in
``specs.manipulation``, ``extremum_axes`` in ``specs.reductions`` ...) are the one source of
shape rules and their messages: a spec's ``infer`` calls them, and so does an op that must
normalize an axis or know an output shape before it dispatches. Each takes ``op``: the public
op asking, named at the head of the message ("sum: axis 3 is out of range ..."); a spec's rule
leaves it out, and the engine names the kernel, its backend and its inputs instead.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tensorplug.core.validate import number, op_prefix, shown, shown_int
from tensorplug.dtypes import ALL_DTYPES, DType, as_dtype
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import TensorInfo

__all__ = [
    "op_prefix",
    "broadcast_shapes",
    "normalize_axis",
    "normalize_axes",
    "same_as_first",
    "broadcast_rule",
    "as_shape",
    "as_bool",
    "as_int",
    "as_float_or_none",
    "as_scalar",
    "fitting_value",
    "as_dtype_attr",
    "as_axes_or_none",
]


def broadcast_shapes(*shapes: Sequence[int], op: str | None = None) -> tuple[int, ...]:
    """The broadcast of several shapes (numpy rules); ShapeError naming them (and `op`) if
    they clash."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        dims = {s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0}
        dims.discard(1)
        if len(dims) > 1:
            raise ShapeError(
                f"{op_prefix(op)}shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be "
                f"broadcast together (axis {i - ndim}: sizes {sorted(dims)}); make the sizes equal or 1."
            )
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def normalize_axis(axis: Any, ndim: int, op: str | None = None, *, allow_0d: bool = False) -> int:
    """`axis` (an int; negative counts from the end) as a non-negative axis of an `ndim`-d
    input, or ShapeError naming `op`, the axis and the valid range.

    A 0-d input has no axis, unless `allow_0d` (the kernel specs' convention): then it takes
    axis 0 or -1, as a 1-element 1-d input would, and the result is 0."""
    if type(axis) is int and -ndim <= axis < ndim:
        return axis % ndim
    try:
        if isinstance(axis, bool) or not hasattr(axis, "__index__"):
            raise TypeError
        a = operator.index(axis)
    except (TypeError, ValueError):  # (a float, an array or a tensor that is not one integer)
        raise ShapeError(f"{op_prefix(op)}axis must be an int, got {shown(axis)}.") from None
    n = 1 if allow_0d and not ndim else ndim
    if -n <= a < n:
        return a % n
    valid = f"{-n}..{n - 1}" if n else "none, a 0-d input has no axes"
    raise ShapeError(f"{op_prefix(op)}axis {a} is out of range for a {ndim}-d input (valid: {valid}).")


def normalize_axes(axis: Any, ndim: int, op: str | None = None) -> tuple[int, ...]:
    """The axes a reduction-style `axis` names in an `ndim`-d input, as a sorted tuple of
    distinct non-negative ints: None names every axis, an int one, a sequence each of its
    entries (ShapeError naming `op` for one out of range or named twice). As in numpy, axis 0
    or -1 of a 0-d input names no axis: the result is ()."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:
        return (axis % ndim,)
    if not isinstance(axis, (list, tuple)):
        axis = (axis,)
    if not ndim and all(type(a) is int and a in (0, -1) for a in axis):
        return ()
    out = tuple(normalize_axis(a, ndim, op) for a in axis)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op_prefix(op)}axis {tuple(axis)} names an axis of the {ndim}-d input "
                         "twice; name each axis once.")
    return tuple(sorted(out))


def same_as_first(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [infos[0]]


def broadcast_rule(out_dtype: DType | None = None):  # type: ignore[no-untyped-def]
    """Rule: output shape is the inputs' broadcast; dtype `out_dtype` or the first input's."""
    def rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
        shape = broadcast_shapes(*(i.shape for i in infos))
        return [TensorInfo(shape, out_dtype or infos[0].dtype)]
    return rule


# -- attribute validators (return the normalized value or raise ValueError/TypeError) --------
def as_shape(value: Any) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    shape = tuple(int(d) for d in value)
    if any(d < -1 for d in shape):
        raise ValueError(f"shape {shape} has a negative size")
    return shape


def as_bool(value: Any) -> bool:
    if not isinstance(value, (bool, int)):
        raise TypeError(f"expected a bool, got {type(value).__name__}")
    return bool(value)


def as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return operator.index(value)
        except TypeError:
            raise TypeError(f"expected an int, got {type(value).__name__}") from None
    return value


def as_scalar(value: Any) -> bool | int | float | complex:
    """A Python number as it is (a numpy scalar as its Python value); TypeError for others."""
    if isinstance(value, (bool, int, float, complex)):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return value.item()
    return float(value)


def as_float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def as_dtype_attr(value: Any) -> DType:
    try:
        return as_dtype(value)
    except DTypeError as exc:
        raise TypeError(str(exc)) from None


def as_axes_or_none(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    return tuple(as_int(a) for a in value)


def fitting_value(value: Any, dtype: DType, what: str, op: str | None = None) -> Any:
    """`value`, a Python scalar an output of `dtype` holds (a fractional one is truncated
    toward zero into an integer dtype); DTypeError naming `op` and `what` if the dtype cannot
    hold it (an integer out of its range, NaN or inf into integers, a complex into a real dtype),
    where numpy and jax would each wrap, clamp or fail their own way."""
    if dtype.is_bool or dtype.is_complex:
        return value
    if isinstance(value, complex):
        raise DTypeError(f"{op_prefix(op)}{what} {value!r} is complex and the output is {dtype.name}; "
                         "pass a real number or a complex dtype.")
    if dtype.is_integer:
        info = np.iinfo(dtype.numpy)
        if not (isinstance(value, (int, np.integer)) or math.isfinite(value)) or \
                not info.min <= int(value) <= info.max:
            given = shown_int(int(value)) if isinstance(value, (int, np.integer)) else repr(value)
            raise DTypeError(f"{op_prefix(op)}{what} {given} does not fit in {dtype.name} (range "
                             f"{info.min}..{info.max}); pass a value in range or choose a wider dtype.")
    return value


def fill_number(value: Any, dtype: DType, what: str, op: str) -> int | float:
    """A fill value (pad's constant, one_hot's on and off values) as the kernel's attribute for
    an output of `dtype`: a real number (ArgumentError naming `op` otherwise) that `dtype` holds
    (``fitting_value``), kept an int for integer dtypes (as a float, one past 2**53 would move)."""
    checked = number(value, op, what)
    fitting_value(checked, dtype, what, op)
    return checked if dtype.is_integer else float(checked)


def check_dtype_in(value: DType, allowed: tuple[DType, ...] = ALL_DTYPES) -> DType:
    if value not in allowed:
        raise DTypeError(f"dtype {value.name} is not one of {[d.name for d in allowed]}")
    return value
