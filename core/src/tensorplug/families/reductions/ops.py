"""Reduction ops (Python Array API names): sum, prod, max, min, mean, var, std, argmax,
argmin, cumulative_sum, cumulative_prod, any, all.

``axis`` is None (all axes), an int or a tuple of ints (negative allowed); ``axis=()``
reduces nothing. The parameters after ``x`` may also be passed by position, as numpy, JAX and
PyTorch accept (``tp.sum(x, 0)``); the standard makes them keyword-only, and its test suite
accepts both. (It also spares tiny calls CPython's slower call of keyword-only defaults.)
Sum and prod of bool or integer inputs give int64 (unsigned: uint64), mean/var/std of
integer inputs give the default float dtype.
"""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import accumulator_of, bfloat16, bool_, float16, float32, int8
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.axes import prod as _prod  # `prod` is the op below
from tensorplug.families._common.convert import asarray, astype, caller, to_float
from tensorplug.families.elementwise.ops import abs as _abs
from tensorplug.families.elementwise.ops import (
    divide,
    equal,
    greater,
    logical_not,
    multiply,
    sqrt,
    square,
    subtract,
)
from tensorplug.families.reductions.spec import arg_axis, extremum_axes
from tensorplug.families.sorting.spec import ordered_dtype
from tensorplug.kernels.shape_rules import normalize_axes, normalize_axis

__all__ = ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin",
           "cumulative_sum", "cumulative_prod", "any", "all"]

_SUM = caller("Sum")
_PROD = caller("Prod")
_MAX = caller("Max")
_MIN = caller("Min")
_ARGMAX = caller("ArgMax")
_ARGMIN = caller("ArgMin")
_CUMSUM = caller("Cumsum")
_CUMPROD = caller("Cumprod")
_PAD = caller("Pad")


def _accumulated(op: str, x: Tensor, dtype: Any) -> Tensor:
    """x cast to `dtype` (op `op`'s argument), or (None) to the dtype sums and products of x
    have."""
    if dtype is not None:
        return astype(x, valid.dtype(dtype, op))
    return astype(x, accumulator_of(x._dtype))


_SUM_ALL = caller("Sum", {"axis": None, "keepdims": False})  # tp.sum(x): the commonest call


def _accumulate(op: str, call: Any, x: Any, axis: Any, dtype: Any, keepdims: bool) -> Tensor:
    if axis is None and dtype is None and isinstance(x, Tensor):
        # a tensor over every axis, straight to the kernel (which widens bool and small integers itself)
        return call((x,), {"axis": None, "keepdims": valid.flag(keepdims, op, "keepdims")})
    x = _accumulated(op, asarray(x), dtype)
    axes = normalize_axes(axis, x.ndim, op)
    if not axes:
        return x
    out = call((x,), {"axis": axes, "keepdims": valid.flag(keepdims, op, "keepdims")})
    # the kernel accumulates small integers in 64 bits; an asked-for dtype is the result's
    return out if dtype is None else astype(out, x._dtype)


def sum(x: Any, /, axis: int | tuple[int, ...] | None = None, dtype: Any = None,  # noqa: A001
        keepdims: bool = False) -> Tensor:
    """Sum over `axis` (all axes if None); bool and integer inputs give int64 (unsigned: uint64)."""
    if axis is None and dtype is None and keepdims is False and x.__class__ is Tensor:
        return _SUM_ALL.unary(x)  # the commonest call: one dispatch (the kernel widens integers)
    return _accumulate("sum", _SUM, x, axis, dtype, keepdims)


def prod(x: Any, /, axis: int | tuple[int, ...] | None = None, dtype: Any = None,
         keepdims: bool = False) -> Tensor:
    """Product over `axis` (all axes if None); bool and integer inputs give int64 (unsigned: uint64)."""
    return _accumulate("prod", _PROD, x, axis, dtype, keepdims)


def _extremum(op: str, call: Any, x: Any, axis: Any, keepdims: bool) -> Tensor:
    x = asarray(x)
    if x._dtype is bool_:
        raise DTypeError(f"{op} does not accept bool tensors; use tp.any / tp.all, or cast with "
                         "x.astype(tp.int32) first.")
    axes = extremum_axes(x.shape, axis, op)
    if not axes:
        return x
    return call((x,), {"axis": axes, "keepdims": valid.flag(keepdims, op, "keepdims")})


def max(x: Any, /, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Tensor:
    """Largest element over `axis` (all axes if None); empty axes are an error."""
    return _extremum("max", _MAX, x, axis, keepdims)


def min(x: Any, /, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Tensor:
    """Smallest element over `axis` (all axes if None); empty axes are an error."""
    return _extremum("min", _MIN, x, axis, keepdims)


#: the floats mean and var compute in float32 (jax's rule; numpy's for mean), rounding the result once
_NARROW = (float16, bfloat16)


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return _prod(shape[a] for a in axes)


def mean(x: Any, /, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Arithmetic mean over `axis`; integer and bool inputs give the default float dtype
    (an empty reduction gives nan)."""
    x = to_float(x)
    axes = normalize_axes(axis, x.ndim, "mean")
    if not axes:
        return x
    if x._dtype in _NARROW:  # (summed in float16, 100 values of 60000 would give inf)
        return astype(mean(astype(x, float32), axes, keepdims), x._dtype)
    total = _SUM((x,), {"axis": axes, "keepdims": valid.flag(keepdims, "mean", "keepdims")})
    n = _count(x.shape, axes)
    return divide(total, float(n)) if n else multiply(total, float("nan"))


def var(x: Any, /, axis: int | tuple[int, ...] | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Tensor:
    """Variance over `axis`: sum of squared deviations / (N - correction); float result."""
    return _var("var", x, axis, correction, keepdims)


def _var(op: str, x: Any, axis: Any, correction: float, keepdims: bool) -> Tensor:
    x = to_float(x)
    axes = normalize_axes(axis, x.ndim, op)
    correction = valid.number(correction, op, "correction")
    keepdims = valid.flag(keepdims, op, "keepdims")
    if x._dtype in _NARROW:  # (jax's way: float16 squares overflow from 256 on)
        return astype(_var(op, astype(x, float32), axes, correction, keepdims), x._dtype)
    d = subtract(x, mean(x, axis=axes, keepdims=True))
    # |d|^2: a complex input's variance is real (d * d would be complex, and wrong)
    deviations = square(_abs(d)) if x._dtype.is_complex else square(d)
    total = _SUM((deviations,), {"axis": axes, "keepdims": keepdims}) if axes else deviations
    dof = _count(x.shape, axes) - correction
    return divide(total, float(dof)) if dof > 0 else multiply(total, float("nan"))


def std(x: Any, /, axis: int | tuple[int, ...] | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis`: sqrt(var(x, axis, correction))."""
    return sqrt(_var("std", x, axis, correction, keepdims))


def _arg(op: str, call: Any, x: Any, axis: int | None, keepdims: bool) -> Tensor:
    x = asarray(x)
    if x._dtype is bool_:
        x = astype(x, int8)
    ordered_dtype(x._dtype, op)  # (complex: no order; the numpy backend would use numpy's own)
    return call((x,), {"axis": arg_axis(x.shape, axis, op), "keepdims": valid.flag(keepdims, op, "keepdims")})


def argmax(x: Any, /, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index (int64) of the first maximum along `axis`, or in the flattened input if None."""
    return _arg("argmax", _ARGMAX, x, axis, keepdims)


def argmin(x: Any, /, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index (int64) of the first minimum along `axis`, or in the flattened input if None."""
    return _arg("argmin", _ARGMIN, x, axis, keepdims)


def _cumulative(op: str, call: Any, initial: float, x: Any, axis: int | None, dtype: Any,
                include_initial: bool) -> Tensor:
    x = _accumulated(op, asarray(x), dtype)
    shape = x.shape
    if not shape:
        raise ShapeError(f"{op} needs an input with at least one dimension, got a 0-d tensor; "
                         "reshape it to (1,) first.")
    if axis is None:
        if len(shape) != 1:
            raise ShapeError(f"{op}: axis=None is only allowed for 1-d inputs, got shape {shape}; "
                             "pass the axis to accumulate along.")
        axis = 0
    a = normalize_axis(axis, len(shape), op)
    out = call((x,), {"axis": a, "exclusive": False, "reverse": False})
    if dtype is not None:  # (the kernel accumulates small integers in 64 bits)
        out = astype(out, x._dtype)
    if valid.flag(include_initial, op, "include_initial"):
        pad = tuple((1, 0) if i == a else (0, 0) for i in range(len(shape)))
        out = _PAD((out,), {"pad_width": pad, "constant_value": initial})
    return out


def cumulative_sum(x: Any, /, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Tensor:
    """Running sum along `axis` (None only for 1-d input); include_initial prepends a 0."""
    return _cumulative("cumulative_sum", _CUMSUM, 0.0, x, axis, dtype, include_initial)


def cumulative_prod(x: Any, /, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Tensor:
    """Running product along `axis` (None only for 1-d input); include_initial prepends a 1."""
    return _cumulative("cumulative_prod", _CUMPROD, 1.0, x, axis, dtype, include_initial)


def any(x: Any, /, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Tensor:
    """Whether any element along `axis` is true (non-zero); bool result, False when empty."""
    x = astype(x, bool_)
    axes = normalize_axes(axis, x.ndim, "any")
    if not axes:
        return x
    keep = valid.flag(keepdims, "any", "keepdims")
    return greater(_SUM((x,), {"axis": axes, "keepdims": keep}), 0)


def all(x: Any, /, axis: int | tuple[int, ...] | None = None,  # noqa: A001
        keepdims: bool = False) -> Tensor:
    """Whether every element along `axis` is true (non-zero); bool result, True when empty."""
    x = astype(x, bool_)
    axes = normalize_axes(axis, x.ndim, "all")
    if not axes:
        return x
    keep = valid.flag(keepdims, "all", "keepdims")
    return equal(_SUM((logical_not(x),), {"axis": axes, "keepdims": keep}), 0)

