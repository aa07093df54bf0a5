"""Kernel specs of the indexing family: StridedSlice (and its gradient StridedSliceGrad),
Gather (take), ScatterAdd (Gather's gradient), NonZero, OneHot.

Slices are given per axis as ``(start, stop, step)`` exactly as ``slice.indices(size)``
returns them, so the output size along an axis is ``len(range(start, stop, step))``; a
negative ``stop`` (possible only with a negative step) means "through index 0".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import ALL_DTYPES, INT_DTYPES, float32, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import (
    as_dtype_attr,
    as_int,
    as_scalar,
    as_shape,
    fitting_value,
    normalize_axis,
    op_prefix,
)
from tensorplug.registry.core_entries import declare_spec


def _slices(value: Any) -> tuple[tuple[int, int, int], ...]:
    out = tuple((as_int(a), as_int(b), as_int(c)) for a, b, c in value)
    if any(step == 0 for _, _, step in out):
        raise ValueError("slice step cannot be zero")
    return out


def _sliced_shape(shape: Sequence[int], slices: Sequence[tuple[int, int, int]]) -> tuple[int, ...]:
    if len(slices) != len(shape):
        raise ShapeError(f"{len(slices)} slices given for a {len(shape)}-d input; give one "
                         "(start, stop, step) per axis")
    for axis, ((start, stop, step), size) in enumerate(zip(slices, shape)):
        read = range(start, stop, step)  # must stay inside the axis (an empty one reads nothing)
        if read and not (0 <= read[0] < size and 0 <= read[-1] < size):
            raise ShapeError(f"slice {(start, stop, step)} is out of range for axis {axis} of size "
                             f"{size}; normalize it with slice.indices(size)")
    return tuple(len(range(*s)) for s in slices)


def _strided_slice_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(_sliced_shape(x.shape, attrs["slices"]), x.dtype)]


_SLICES = AttrSpec("slices", validate=_slices, doc="one (start, stop, step) per axis, normalized")

STRIDED_SLICE = declare_spec(KernelSpec(
    name="StridedSlice", inputs=("x",), infer=_strided_slice_rule, attrs=(_SLICES,),
    doc="x[start:stop:step, ...] with one normalized slice per axis",
))


def _strided_slice_grad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    dy = infos[0]
    shape = attrs["shape"]
    expected = _sliced_shape(shape, attrs["slices"])
    if tuple(dy.shape) != expected:
        raise ShapeError(f"dy has shape {dy.shape}; slicing shape {shape} gives {expected}")
    return [TensorInfo(tuple(shape), dy.dtype)]


STRIDED_SLICE_GRAD = declare_spec(KernelSpec(
    name="StridedSliceGrad", inputs=("dy",), infer=_strided_slice_grad_rule,
    attrs=(AttrSpec("shape", validate=as_shape, doc="shape of the sliced input"), _SLICES),
    doc="zeros of `shape` with dy written where StridedSlice read (its gradient)",
))


def gather_axis(shape: Sequence[int], axis: int, op: str | None = None) -> int:
    """The axis (made non-negative) a gather from an input of `shape` takes along; ShapeError
    naming `op` for a 0-d input or an axis out of range."""
    if not shape:
        raise ShapeError(f"{op_prefix(op)}cannot take along an axis of a 0-d tensor; reshape it to "
                         "1-d first (take with axis=None does).")
    return normalize_axis(axis, len(shape), op)


def _gather_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, idx = infos
    axis = gather_axis(x.shape, attrs["axis"])
    return [TensorInfo(x.shape[:axis] + tuple(idx.shape) + x.shape[axis + 1:], x.dtype)]


GATHER = declare_spec(KernelSpec(
    name="Gather", inputs=("x", "indices"), infer=_gather_rule,
    input_dtypes={"indices": INT_DTYPES},
    attrs=(AttrSpec("axis", 0, as_int, "the axis to take along"),),
    doc="np.take(x, indices, axis): negative indices count from the end; out of range is an error",
))


def _scatter_add_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    idx, updates = infos
    shape = tuple(attrs["shape"])
    if not shape:
        raise ShapeError("cannot scatter into a 0-d shape (Gather cannot take from one either)")
    axis = normalize_axis(attrs["axis"], len(shape))
    expected = shape[:axis] + tuple(idx.shape) + shape[axis + 1:]
    if tuple(updates.shape) != expected:
        raise ShapeError(f"updates have shape {updates.shape}; scattering into {shape} along axis "
                         f"{axis} with indices of shape {idx.shape} needs {expected}")
    return [TensorInfo(shape, updates.dtype)]


SCATTER_ADD = declare_spec(KernelSpec(
    name="ScatterAdd", inputs=("indices", "updates"), infer=_scatter_add_rule,
    input_dtypes={"indices": INT_DTYPES},
    attrs=(AttrSpec("shape", validate=as_shape, doc="the output shape"),
           AttrSpec("axis", 0, as_int, "the axis the indices address")),
    doc="zeros of `shape` plus updates added at indices along axis (repeats accumulate)",
))


def _nonzero_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo((-1,), int64)]  # the length depends on the values


NONZERO = declare_spec(KernelSpec(
    name="NonZero", inputs=("x",), infer=_nonzero_rule, differentiable=False,
    input_dtypes={"x": ALL_DTYPES},
    doc="flat (C-order) int64 indices of the non-zero elements; length depends on the values",
))


def one_hot_shape(shape: Sequence[int], depth: int, op: str | None = None) -> tuple[int, ...]:
    """The shape of one-hot rows of `depth` for indices of `shape`; ShapeError naming `op` for
    a negative depth."""
    if depth < 0:
        raise ShapeError(f"{op_prefix(op)}depth must be >= 0, got {depth}; it is the number of "
                         "classes.")
    return (*shape, depth)


def _one_hot_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    for what in ("on_value", "off_value"):
        fitting_value(attrs[what], attrs["dtype"], what)
    return [TensorInfo(one_hot_shape(infos[0].shape, attrs["depth"]), attrs["dtype"])]


ONE_HOT = declare_spec(KernelSpec(
    name="OneHot", inputs=("indices",), infer=_one_hot_rule, differentiable=False,
    input_dtypes={"indices": INT_DTYPES},
    attrs=(AttrSpec("depth", validate=as_int, doc="number of classes"),
           AttrSpec("on_value", 1.0, as_scalar), AttrSpec("off_value", 0.0, as_scalar),
           AttrSpec("dtype", float32, as_dtype_attr)),
    doc="one-hot rows; indices outside [0, depth) give all-off rows",
))
