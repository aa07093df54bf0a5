"""Kernel specs of the n-d gather/scatter family (TF semantics): GatherNd, ScatterNd (each the
other's gradient) and TensorScatterUpdate.

``indices`` has shape ``batch + (k,)``: each of its rows addresses the first ``k`` axes of the
indexed shape, and selects the slice of the remaining axes, so the gathered (or scattered)
values have shape ``batch + shape[k:]``. Indices lie in ``[0, shape[i])`` (no negatives, as in
TF); a kernel given one outside raises IndexOutOfRangeError when it can see the values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import INT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_shape, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["GATHER_ND", "SCATTER_ND", "TENSOR_SCATTER_UPDATE", "nd_slice_shape"]


def nd_slice_shape(shape: Sequence[int], indices_shape: Sequence[int], op: str | None = None,
                   what: str = "params") -> tuple[int, ...]:
    """The shape ``indices.shape[:-1] + shape[k:]`` of the slices that n-d `indices` (last
    axis of size k) address in `shape`; ShapeError naming `op` for 0-d indices or k too big."""
    if not indices_shape:
        raise ShapeError(f"{op_prefix(op)}indices must have at least 1 dimension (the last holds one "
                         "index per addressed axis), got a 0-d tensor; reshape it to (1,).")
    k = indices_shape[-1]
    if k < 1:
        raise ShapeError(f"{op_prefix(op)}indices of shape {tuple(indices_shape)} address no axis; their "
                         "last axis must hold at least one index.")
    if k > len(shape):
        raise ShapeError(f"{op_prefix(op)}indices of shape {tuple(indices_shape)} address {k} axes, but "
                         f"{what} of shape {tuple(shape)} has only {len(shape)}; the last axis of "
                         f"indices must be at most {len(shape)}.")
    return tuple(indices_shape[:-1]) + tuple(shape[k:])


def _checked_updates(shape: Sequence[int], idx: TensorInfo, updates: TensorInfo, what: str) -> None:
    want = nd_slice_shape(shape, idx.shape, what=what)
    if tuple(updates.shape) != want:
        raise ShapeError(f"updates have shape {updates.shape}; indices of shape {idx.shape} into "
                         f"{what} of shape {tuple(shape)} need updates of shape {want}.")


def _gather_nd_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    params, idx = infos
    return [TensorInfo(nd_slice_shape(params.shape, idx.shape), params.dtype)]


GATHER_ND = declare_spec(KernelSpec(
    name="GatherNd", inputs=("params", "indices"), infer=_gather_nd_rule,
    input_dtypes={"indices": INT_DTYPES},
    doc="out[b] = params[tuple(indices[b])] (the slice of the axes not indexed); TF's gather_nd",
))


def _scatter_nd_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    idx, updates = infos
    shape = tuple(attrs["shape"])
    if any(d < 0 for d in shape):
        raise ShapeError(f"shape {shape} has a negative size; give the output's sizes.")
    _checked_updates(shape, idx, updates, "the output")
    return [TensorInfo(shape, updates.dtype)]


SCATTER_ND = declare_spec(KernelSpec(
    name="ScatterNd", inputs=("indices", "updates"), infer=_scatter_nd_rule,
    input_dtypes={"indices": INT_DTYPES},
    attrs=(AttrSpec("shape", validate=as_shape, doc="the output shape"),),
    doc="zeros of `shape` with updates[b] added at indices[b] (repeated indices accumulate)",
))


def _tensor_scatter_update_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    tensor, idx, updates = infos
    _checked_updates(tensor.shape, idx, updates, "tensor")
    return [tensor]


TENSOR_SCATTER_UPDATE = declare_spec(KernelSpec(
    name="TensorScatterUpdate", inputs=("tensor", "indices", "updates"),
    infer=_tensor_scatter_update_rule, input_dtypes={"indices": INT_DTYPES},
    same_dtype=("tensor", "updates"),
    doc="tensor with the slices at indices replaced by updates (repeated indices: one of them wins)",
))
