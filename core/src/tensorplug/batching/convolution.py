"""Batching rules of the filter gradients of the convolutions and of the dilation's gradients:
vmap's batch folded into the channels (batch-major), the kernel once.

A convolution's filter gradient with x and dy batched (per-example gradients) is the filter
gradient of a grouped convolution: the batch times the groups as feature groups, each example's
channels a block of their own, as JAX batches a convolution whose filter is batched. With one of
the two batched and one group, the other's channels need no blocks (a filter gradient's input
and output channels are independent). The dilation works channel by channel, so the batch
simply joins its channels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..dispatch import Dispatcher, dispatcher_of
from ..registry.batching import BatchConfig, register_batching_rule
from ..tensor import Tensor
from ._util import Axes, Inputs, all_batched, batch_size, batching_rule, reshaped, to_front, transposed


def folded(x: Tensor, axis: int) -> Tensor:
    """`x` (batch axis first) with the batch joined to per-example axis `axis`, batch-major:
    (B, ..., C, ...) -> (..., B * C, ...)."""
    order = list(range(1, axis + 1)) + [0] + list(range(axis + 1, x.ndim))
    moved = transposed(x, order)
    shape = moved.shape
    return reshaped(moved, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])


def unfolded(out: Tensor, axis: int, size: int) -> Tensor:
    """The inverse of ``folded`` on an output: axis `axis` of B * C entries split into (B, C);
    the batch axis is then `axis`."""
    shape = out.shape
    return reshaped(out, shape[:axis] + (size, shape[axis] // size) + shape[axis + 1:])


def _filter_gradient(dispatcher: Dispatcher) -> Any:
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
        (x, dy), (ax, ady) = inputs, axes
        rank = len(attrs["strides"])
        channel = 1 if attrs["data_format"][1] == "C" else rank + 1  # (of one example)
        groups, shape = attrs["groups"], list(attrs["filter_shape"])
        size = batch_size(inputs, axes)
        if groups > 1 and (ax is None or ady is None):  # the blocks need both batched
            (x, dy), ax, ady = all_batched(inputs, axes), 0, 0
        if ax is not None and ady is None:  # x's channels: (B * C_in) inputs of the filter
            x, shape[rank] = folded(to_front(x, ax), channel), shape[rank] * size
            out = dispatcher((x, dy), {**attrs, "filter_shape": tuple(shape)})
            return unfolded(out, rank, size), rank
        shape[rank + 1] *= size  # dy's channels: (B * C_out) outputs of the filter
        dy = folded(to_front(dy, ady), channel)
        if ax is not None:  # both: B * groups groups, example b's channels a block of its own
            x, groups = folded(to_front(x, ax), channel), groups * size
        out = dispatcher((x, dy), {**attrs, "filter_shape": tuple(shape), "groups": groups})
        return unfolded(out, rank + 1, size), rank + 1
    return rule


for _name in ("Conv2DBackpropFilter", "Conv3DBackpropFilterV2"):
    register_batching_rule(BatchConfig(_name, _filter_gradient(dispatcher_of(_name))))

_DILATION_INPUT = dispatcher_of("Dilation2DBackpropInput")
_DILATION_FILTER = dispatcher_of("Dilation2DBackpropFilter")


def _dilation_folded(inputs: Inputs, axes: Axes) -> tuple[list[Tensor], int]:
    """x (N, H, W, C), filter (KH, KW, C) and dy (N, H', W', C) with the batch joined to their
    channels (an unbatched one broadcast), and the batch size."""
    x, filt, dy = all_batched(inputs, axes)
    return [folded(x, 3), folded(filt, 2), folded(dy, 3)], x.shape[0]


@batching_rule("Dilation2DBackpropInput")
def _dilation_input(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """With the filter shared: the batch merged into the images' (each image's own windows);
    else into the channels."""
    if axes[1] is None:
        x, dy = all_batched((inputs[0], inputs[2]), (axes[0], axes[2]))
        size, n = x.shape[:2]
        out = _DILATION_INPUT((reshaped(x, (size * n,) + x.shape[2:]), inputs[1],
                               reshaped(dy, (size * n,) + dy.shape[2:])), attrs)
        return reshaped(out, (size, n) + out.shape[1:]), 0
    args, size = _dilation_folded(inputs, axes)
    return unfolded(_DILATION_INPUT(args, attrs), 3, size), 3


@batching_rule("Dilation2DBackpropFilter")
def _dilation_filter(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    args, size = _dilation_folded(inputs, axes)
    return unfolded(_DILATION_FILTER(args, attrs), 2, size), 2
