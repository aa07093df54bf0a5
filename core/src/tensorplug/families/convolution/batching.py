"""Batching rules of the convolutions (Conv2D, Conv3D, their input and filter gradients) and
of the dilation and its gradients. With one filter for every example, the batch joins the
images' (``nn.images_merged``); else vmap's batch is folded into the channels (batch-major),
the kernel once.

A batched filter, and a filter gradient with x and dy batched (per-example gradients), make a
grouped convolution: the batch times the groups as feature groups, each example's channels a
block of their own, as JAX batches a convolution whose filter is batched. With one of x and dy
batched and one group, the other's channels need no blocks (a filter gradient's input and
output channels are independent). The dilation works channel by channel, so the batch simply
joins its channels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    all_batched,
    batch_size,
    reshaped,
    to_front,
    transposed,
)
from tensorplug.families.nn.batching import images_merged
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.batching import BatchConfig, BatchFunc
from tensorplug.registry.core_entries import declare_batching_rule


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


def _grouped(name: str, shape_attr: str | None = None) -> Any:
    """Conv (x, filter) and its input gradient (dy, filter): a shared filter, the images merged;
    batched filters of one group and a shared x (dy), one filter of the filters side by side
    (its output's channels: a conv's out channels, an input gradient's in channels); else both
    inputs' channels folded, B * groups groups. The output's channels unfolded."""
    dispatcher, shared = dispatcher_of(name), images_merged(name, shape_attr=shape_attr)

    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
        if axes[1] is None:
            return shared(inputs, axes, attrs)
        rank, size = len(attrs["strides"]), batch_size(inputs, axes)
        channel = 1 if attrs["data_format"][1] == "C" else rank + 1
        new = dict(attrs)
        if shape_attr is not None:
            shape = list(attrs[shape_attr])
            shape[channel] *= size
            new[shape_attr] = tuple(shape)
        if axes[0] is None and attrs["groups"] == 1:
            side = rank if shape_attr is not None else rank + 1
            out = dispatcher((inputs[0], folded(to_front(inputs[1], axes[1]), side)), new)
        else:
            x, filt = all_batched(inputs, axes)
            new["groups"] = attrs["groups"] * size
            out = dispatcher((folded(x, channel), folded(filt, rank + 1)), new)
        return unfolded(out, channel, size), channel
    return rule


for _name in ("Conv2D", "Conv3D"):
    declare_batching_rule(BatchConfig(_name, _grouped(_name)))
for _name in ("Conv2DBackpropInput", "Conv3DBackpropInputV2"):
    declare_batching_rule(BatchConfig(_name, _grouped(_name, "input_shape")))


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
    declare_batching_rule(BatchConfig(_name, _filter_gradient(dispatcher_of(_name))))



def _dilation(name: str, merged: tuple[int, ...] | None) -> BatchFunc:
    """Dilation2D and its gradients: a shared filter, the batch merged into the images' (of the
    inputs at `merged`, if given); else joined to every input's channels (last), an unbatched
    input broadcast, as it is then to the output's."""
    dispatcher = dispatcher_of(name)
    shared = None if merged is None else images_merged(name, merged)

    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
        if shared is not None and axes[1] is None:
            return shared(inputs, axes, attrs)
        batched = all_batched(inputs, axes)
        out = dispatcher([folded(t, t.ndim - 2) for t in batched], attrs)
        return unfolded(out, out.ndim - 1, batched[0].shape[0]), out.ndim - 1
    return rule


declare_batching_rule(BatchConfig("Dilation2D", _dilation("Dilation2D", (0,))))
declare_batching_rule(BatchConfig("Dilation2DBackpropInput", _dilation("Dilation2DBackpropInput", (0, 2))))
declare_batching_rule(BatchConfig("Dilation2DBackpropFilter", _dilation("Dilation2DBackpropFilter", None)))
