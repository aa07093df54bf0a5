"""Kernel specs of the reduction family: Sum, Prod, Max, Min, EuclideanNorm, ArgMax, ArgMin,
Cumsum, Cumprod.

``axis`` is a tuple of axes (negative allowed) or None for all axes; ArgMax/ArgMin take one
int axis or None (the flattened input). Sum and Prod of bool and signed integer inputs give
int64 (the default integer), of unsigned ones uint64, as the Array API standard says.

``reduced_shape``, ``extremum_axes`` and ``arg_axis`` are the family's shape rules, shared with
the reduction ops (``tp.max`` asks ``extremum_axes`` before it dispatches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import INEXACT_DTYPES, NUMERIC_DTYPES, accumulator_of, bool_, int64, real_of
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import (
    as_axes_or_none,
    as_bool,
    as_int,
    normalize_axes,
    normalize_axis,
    op_prefix,
)
from tensorplug.registry.core_entries import declare_spec

_AXIS = AttrSpec("axis", None, as_axes_or_none, "tuple of axes to reduce, None for all")
_KEEPDIMS = AttrSpec("keepdims", False, as_bool, "keep reduced axes with size 1")


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> tuple[int, ...]:
    """`shape` reduced over the (normalized) `axes`: removed, or kept with size 1."""
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def extremum_axes(shape: Sequence[int], axis: Any, op: str | None = None) -> tuple[int, ...]:
    """The axes a max/min over `axis` of an input of `shape` reduces (``normalize_axes``);
    ShapeError naming `op` if one is empty (the max/min of nothing has no identity)."""
    axes = normalize_axes(axis, len(shape), op)
    for a in axes:
        if shape[a] == 0:
            raise ShapeError(f"{op_prefix(op)}cannot reduce over the empty axis {a} of shape "
                             f"{tuple(shape)}: the maximum/minimum has no identity. Reduce over "
                             "non-empty axes.")
    return axes


def arg_axis(shape: Sequence[int], axis: Any, op: str | None = None) -> int | None:
    """The axis of an argmax/argmin (None: the flattened input) of an input of `shape`,
    normalized (a 0-d input takes axis 0 or -1); ShapeError naming `op` if there is no index
    to return (an empty input, or an empty axis)."""
    if axis is None:
        if 0 in shape:
            raise ShapeError(f"{op_prefix(op)}the input of shape {tuple(shape)} is empty; there is "
                             "no index to return. Check the input or reduce a non-empty axis.")
        return None
    a = normalize_axis(axis, len(shape), op, allow_0d=True)
    if shape and shape[a] == 0:
        raise ShapeError(f"{op_prefix(op)}axis {axis} of shape {tuple(shape)} is empty; there is no "
                         "index to return. Reduce a non-empty axis.")
    return a


def _accumulate_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    axes = normalize_axes(attrs["axis"], len(x.shape))
    dtype = accumulator_of(x.dtype)
    return [TensorInfo(reduced_shape(x.shape, axes, attrs["keepdims"]), dtype)]


def _extremum_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    axes = extremum_axes(x.shape, attrs["axis"])
    return [TensorInfo(reduced_shape(x.shape, axes, attrs["keepdims"]), x.dtype)]


def _arg_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    a = arg_axis(x.shape, attrs["axis"])
    if a is None:
        return [TensorInfo((1,) * len(x.shape) if attrs["keepdims"] else (), int64)]
    return [TensorInfo(reduced_shape(x.shape, (a,), attrs["keepdims"]), int64)]


def _cumulative_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    normalize_axis(attrs["axis"], len(x.shape), allow_0d=True)
    dtype = accumulator_of(x.dtype)
    return [TensorInfo(x.shape, dtype)]


def _reduction(name: str, rule: Any, doc: str) -> KernelSpec:
    return declare_spec(KernelSpec(
        name=name, inputs=("x",), infer=rule, attrs=(_AXIS, _KEEPDIMS), doc=doc,
        input_dtypes={"x": NUMERIC_DTYPES + (bool_,)} if name in ("Sum", "Prod") else {"x": NUMERIC_DTYPES},
    ))


SUM = _reduction("Sum", _accumulate_rule, "sum over axes")
PROD = _reduction("Prod", _accumulate_rule, "product over axes")
MAX = _reduction("Max", _extremum_rule, "maximum over axes; ties split the gradient")
MIN = _reduction("Min", _extremum_rule, "minimum over axes; ties split the gradient")



def _norm_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    axes = normalize_axes(attrs["axis"], len(x.shape))
    return [TensorInfo(reduced_shape(x.shape, axes, attrs["keepdims"]), real_of(x.dtype))]


EUCLIDEAN_NORM = declare_spec(KernelSpec(
    name="EuclideanNorm", inputs=("x",), infer=_norm_rule, attrs=(_AXIS, _KEEPDIMS),
    input_dtypes={"x": INEXACT_DTYPES},
    doc="sqrt(sum |x|^2) over axes, real for a complex x (the 2-norm; Frobenius over two axes)",
))

_ARG_ATTRS = (AttrSpec("axis", None, lambda v: None if v is None else as_int(v),
                       "the axis, or None for the flattened input"), _KEEPDIMS)
ARGMAX = declare_spec(KernelSpec(
    name="ArgMax", inputs=("x",), infer=_arg_rule, attrs=_ARG_ATTRS, differentiable=False,
    input_dtypes={"x": NUMERIC_DTYPES}, doc="index (int64) of the first maximum",
))
ARGMIN = declare_spec(KernelSpec(
    name="ArgMin", inputs=("x",), infer=_arg_rule, attrs=_ARG_ATTRS, differentiable=False,
    input_dtypes={"x": NUMERIC_DTYPES}, doc="index (int64) of the first minimum",
))

_CUM_ATTRS = (AttrSpec("axis", 0, as_int, "the axis"),
              AttrSpec("exclusive", False, as_bool, "leave out the element itself"),
              AttrSpec("reverse", False, as_bool, "accumulate from the end"))
CUMSUM = declare_spec(KernelSpec(
    name="Cumsum", inputs=("x",), infer=_cumulative_rule, attrs=_CUM_ATTRS,
    input_dtypes={"x": NUMERIC_DTYPES + (bool_,)}, doc="running sum along an axis",
))
CUMPROD = declare_spec(KernelSpec(
    name="Cumprod", inputs=("x",), infer=_cumulative_rule, attrs=_CUM_ATTRS,
    input_dtypes={"x": NUMERIC_DTYPES + (bool_,)}, doc="running product along an axis",
))
