"""Batching rules of the neural-network kernels: softmaxes along a shifted axis; the sparse
cross-entropy with vmap's batch merged into its examples' axis; kernels over
a leading batch of images (pooling, fused convolutions of images by one filter, resizing, local
response normalization, rotation) with vmap's batch merged into theirs; MaxPoolWithArgmax
likewise, its flat indices counted from each example's first image. (Convolutions and dilations,
whose filter may be batched too: ``batching.convolution``.)"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import int64
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    all_batched,
    batch_size,
    batching_rule,
    broadcast,
    reshaped,
    to_front,
    with_axes,
)
from tensorplug.families.creation.ops import arange
from tensorplug.kernels.dispatcher import dispatcher_of
from tensorplug.registry.batching import BatchConfig, BatchFunc
from tensorplug.registry.core_entries import declare_batching_rule

with_axes("Softmax", "LogSoftmax")

_SPARSE_XENT = dispatcher_of("SparseSoftmaxCrossEntropyWithLogits")


@batching_rule("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Any, int]:
    """Both inputs batch-first, (size, n, c) and (size, n) reshaped to (size * n, c) and
    (size * n,); the kernel once; its outputs split back."""
    features, labels = all_batched(inputs, axes)
    size, rows, classes = features.shape
    loss, backprop = _SPARSE_XENT((reshaped(features, (size * rows, classes)),
                                   reshaped(labels, (size * rows,))), attrs)
    return (reshaped(loss, (size, rows)), reshaped(backprop, (size, rows, classes))), 0


def images_merged(name: str, merged: Sequence[int] = (0,), shape_attr: str | None = None) -> BatchFunc:
    """The rule of a kernel whose inputs at `merged` share a leading axis of independent items
    (images), which vmap's batch joins: those inputs reshaped to (batch * n, ...), the kernel
    once, the output split back. The other inputs (filters) must be unbatched, else the rule
    defers to the loop; `shape_attr` names an attribute holding the output's full shape."""
    dispatcher = dispatcher_of(name)

    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> Any:
        if any(a is not None for i, a in enumerate(axes) if i not in merged):
            return NotImplemented
        size = batch_size(inputs, axes)
        args = list(inputs)
        for i in merged:
            x = to_front(inputs[i], axes[i]) if axes[i] is not None else \
                broadcast(inputs[i], (size,) + inputs[i].shape)
            args[i] = reshaped(x, (size * x.shape[1],) + x.shape[2:])
        new = dict(attrs)
        if shape_attr is not None:
            shape = tuple(attrs[shape_attr])
            new[shape_attr] = (size * shape[0],) + shape[1:]
        out = dispatcher(args, new)
        return reshaped(out, (size, out.shape[0] // size) + out.shape[1:]), 0
    return rule


def leading_batch(*kernel_names: str, merged: Sequence[int] = (0,), shape_attr: str | None = None) -> None:
    """Register ``images_merged``'s rule for each of `kernel_names`."""
    for name in kernel_names:
        declare_batching_rule(BatchConfig(name, images_merged(name, merged, shape_attr)))


leading_batch("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D", "LRN", "FlipLeftRight", "ResizeBilinear",
              "ResizeNearestNeighbor", "DepthToSpace", "SpaceToDepth", "FusedConv2D", "FusedDepthwiseConv2D",
              "FusedBatchNorm", "RotateWithOffset")
leading_batch("AvgPoolGrad", "AvgPool3DGrad", "ResizeBilinearGrad", "ResizeNearestNeighborGrad",
              merged=(0, 1))
leading_batch("MaxPoolGrad", "MaxPool3DGrad", "LRNGrad", merged=(0, 1, 2))

_MAX_POOL_WITH_ARGMAX = dispatcher_of("MaxPoolWithArgmax")


@batching_rule("MaxPoolWithArgmax")
def _max_pool_with_argmax(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Any, int]:
    """The batch merged into the images'; indices that count the images too
    (include_batch_in_index) less the elements of the examples before."""
    x = to_front(inputs[0], axes[0])
    size, n = x.shape[:2]
    values, indices = _MAX_POOL_WITH_ARGMAX((reshaped(x, (size * n,) + x.shape[2:]),), attrs)
    values = reshaped(values, (size, n) + values.shape[1:])
    indices = reshaped(indices, (size, n) + indices.shape[1:])
    if attrs["include_batch_in_index"]:
        first = arange(size, dtype=int64) * math.prod(x.shape[1:])
        indices = indices - reshaped(first, (size, 1, 1, 1, 1))
    return (values, indices), 0
