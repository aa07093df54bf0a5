"""Building blocks for kernel spec rules: broadcasting, axes, attribute validators."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..dtypes import ALL_DTYPES, DType, as_dtype
from ..errors import DTypeError, ShapeError
from ..kernel_spec import TensorInfo

__all__ = [
    "broadcast_shapes",
    "normalize_axis",
    "normalize_axes",
    "same_as_first",
    "broadcast_rule",
    "as_shape",
    "as_bool",
    "as_int",
    "as_float_or_none",
    "as_dtype_attr",
    "as_axes_or_none",
]


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of several shapes (numpy rules); ShapeError naming them if they clash."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        dims = {s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0}
        dims.discard(1)
        if len(dims) > 1:
            raise ShapeError(
                f"shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together "
                f"(axis {i - ndim}: sizes {sorted(dims)}); make the sizes equal or 1."
            )
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ShapeError(f"{what} must be an int, got {axis!r}")
    n = max(ndim, 1)  # a 0-d input takes axis 0 or -1, as a 1-element 1-d one would
    if not -n <= axis < n:
        raise ShapeError(f"{what} {axis} is out of range for a {ndim}-d input (valid: {-n}..{n - 1}).")
    return axis % ndim if ndim else 0


def normalize_axes(axes: Any, ndim: int) -> tuple[int, ...]:
    """None -> all axes; int or sequence -> sorted non-negative tuple; duplicates refused."""
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, int):
        axes = (axes,)
    out = tuple(sorted(normalize_axis(a, ndim) for a in axes))
    if len(set(out)) != len(out):
        raise ShapeError(f"repeated axis in {tuple(axes)}")
    return out


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
            import operator
            return operator.index(value)
        except TypeError:
            raise TypeError(f"expected an int, got {type(value).__name__}") from None
    return value


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


def check_dtype_in(value: DType, allowed: tuple[DType, ...] = ALL_DTYPES) -> DType:
    if value not in allowed:
        raise DTypeError(f"dtype {value.name} is not one of {[d.name for d in allowed]}")
    return value
