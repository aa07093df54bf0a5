"""Batching rules of the indexing kernels: slices given a full slice of the batch axis, Gather
of batched values and/or batched indices, one-hot encoding."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_indices import flat_indices, loop_errors
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    batching_rule,
    broadcast,
    reshaped,
    to_front,
    transposed,
)
from tensorplug.kernels.dispatcher import dispatcher_of

_STRIDED_SLICE, _STRIDED_SLICE_GRAD = dispatcher_of("StridedSlice"), dispatcher_of("StridedSliceGrad")
_GATHER, _SCATTER_ADD = dispatcher_of("Gather"), dispatcher_of("ScatterAdd")
_ONE_HOT = dispatcher_of("OneHot")


@batching_rule("StridedSlice")
def _strided_slice(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    return _STRIDED_SLICE((x,), {"slices": ((0, x.shape[0], 1),) + tuple(attrs["slices"])}), 0


@batching_rule("StridedSliceGrad")
def _strided_slice_grad(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    dy = to_front(inputs[0], axes[0])
    size = dy.shape[0]
    return _STRIDED_SLICE_GRAD((dy,), {"shape": (size,) + tuple(attrs["shape"]),
                                       "slices": ((0, size, 1),) + tuple(attrs["slices"])}), 0


@batching_rule("Gather")
@loop_errors("Gather")
def _gather(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    (x, indices), (ax, ai) = inputs, axes
    rank = x.ndim - (ax is not None)
    axis = attrs["axis"] % rank
    if ai is None:  # batched values, shared indices: gather along the shifted axis
        return _GATHER((to_front(x, ax), indices), {"axis": axis + 1}), 0
    if ax is None:  # shared values, batched indices: the batch sits where the indices go
        return _GATHER((x, indices), {"axis": axis}), axis + ai
    # both batched: one gather from the values with their batch and gather axes flattened
    x = to_front(x, ax)
    size, n = x.shape[0], x.shape[axis + 1]
    order = [0, axis + 1] + [d for d in range(1, x.ndim) if d != axis + 1]
    flat = reshaped(transposed(x, order), (size * n,) + tuple(x.shape[d] for d in order[2:]))
    indices = to_front(indices, ai)
    out = _GATHER((flat, flat_indices(indices, n, negative=True)), {"axis": 0})  # (B, *indices, *pre, *post)
    k = indices.ndim
    back = [0] + list(range(k, k + axis)) + list(range(1, k)) + list(range(k + axis, out.ndim))
    return transposed(out, back), 0


@batching_rule("ScatterAdd")
@loop_errors("ScatterAdd")
def _scatter_add(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """Gather's transpose: batched updates scatter along the shifted axis; batched indices
    scatter into the batch and the axis flattened together, as Gather's rule gathers."""
    (indices, updates), (ai, au) = inputs, axes
    shape = tuple(attrs["shape"])
    axis = attrs["axis"] % len(shape)
    if ai is None:
        updates = to_front(updates, au)
        return _SCATTER_ADD((indices, updates), {"shape": updates.shape[:1] + shape, "axis": axis + 1}), 0
    indices = to_front(indices, ai)
    size, n, k = indices.shape[0], shape[axis], indices.ndim - 1
    if au is None:
        updates = broadcast(updates, (size,) + updates.shape)
    updates = to_front(updates, au)  # (B, *pre, *indices, *post)
    order = [0] + list(range(1 + axis, 1 + axis + k)) + list(range(1, 1 + axis)) \
        + list(range(1 + axis + k, updates.ndim))
    rest = shape[:axis] + shape[axis + 1:]
    out = _SCATTER_ADD((flat_indices(indices, n, negative=True), transposed(updates, order)),
                       {"shape": (size * n,) + rest, "axis": 0})
    out = reshaped(out, (size, n) + rest)
    back = [0] + list(range(2, 2 + axis)) + [1] + list(range(2 + axis, out.ndim))
    return transposed(out, back), 0


@batching_rule("OneHot")
def _one_hot(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int | None]:
    """The new axis goes last, so the batch axis of the indices stays where it is."""
    return _ONE_HOT(inputs, attrs), axes[0]
