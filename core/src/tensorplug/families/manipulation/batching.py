"""Batching rules of the shape and layout kernels: the batch axis first, the attributes
(shapes, permutations, axes, paddings, repetitions) given one more leading axis; BroadcastArgs
of batched shape vectors, written with ops."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    all_batched,
    batching_rule,
    reshaped,
    to_front,
    with_axes,
)
from tensorplug.families.elementwise.ops import where
from tensorplug.kernels.dispatcher import dispatcher_of

with_axes("Roll", "SplitV", "Unpack")
with_axes("Reverse", attr="axes")

_RESHAPE, _TRANSPOSE = dispatcher_of("Reshape"), dispatcher_of("Transpose")
_BROADCAST_TO, _CONCAT, _STACK = dispatcher_of("BroadcastTo"), dispatcher_of("Concat"), dispatcher_of("Stack")
_PAD, _MIRROR_PAD, _TILE = dispatcher_of("Pad"), dispatcher_of("MirrorPad"), dispatcher_of("Tile")
_BAND_PART, _TOP_K = dispatcher_of("MatrixBandPart"), dispatcher_of("TopK")


@batching_rule("Reshape")
def _reshape(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    return _RESHAPE((x,), {"shape": (x.shape[0],) + tuple(attrs["shape"])}), 0


@batching_rule("Transpose")
def _transpose(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    return _TRANSPOSE((x,), {"perm": (0,) + tuple(p % (x.ndim - 1) + 1 for p in attrs["perm"])}), 0


@batching_rule("BroadcastTo")
def _broadcast_to(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    size, shape = x.shape[0], tuple(attrs["shape"])
    missing = len(shape) - (x.ndim - 1)
    if missing > 0:  # new leading axes of the example go after the batch axis
        x = reshaped(x, (size,) + (1,) * missing + x.shape[1:])
    return _BROADCAST_TO((x,), {"shape": (size,) + shape}), 0


@batching_rule("Concat")
def _concat(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    xs = all_batched(inputs, axes)
    return _CONCAT(xs, {"axis": attrs["axis"] % (xs[0].ndim - 1) + 1}), 0


@batching_rule("Stack")
def _stack(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    xs = all_batched(inputs, axes)
    return _STACK(xs, {"axis": attrs["axis"] % xs[0].ndim + 1}), 0


@batching_rule("Pad")
def _pad(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    pad_width = ((0, 0),) + tuple(attrs["pad_width"])
    return _PAD((x,), {"pad_width": pad_width, "constant_value": attrs["constant_value"]}), 0


@batching_rule("Tile")
def _tile(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    reps = tuple(attrs["reps"])
    missing = len(reps) - (x.ndim - 1)
    if missing > 0:
        x = reshaped(x, (x.shape[0],) + (1,) * missing + x.shape[1:])
    return _TILE((x,), {"reps": (1,) + (1,) * max(0, -missing) + reps}), 0


@batching_rule("MatrixBandPart")
def _band_part(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    return _BAND_PART((to_front(inputs[0], axes[0]),), attrs), 0


@batching_rule("MirrorPad")
def _mirror_pad(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    return _MIRROR_PAD((x,), {"paddings": ((0, 0),) + tuple(attrs["paddings"]), "mode": attrs["mode"]}), 0


@batching_rule("TopK")
def _top_k(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Any, int]:
    """Along the last axis: the batch axis first, out of its way."""
    return _TOP_K((to_front(inputs[0], axes[0]),), attrs), 0


@batching_rule("BroadcastArgs")
def _broadcast_args(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """The kernel's definition on rows: both shapes padded with ones on the left to one length,
    then s1's size where s0's is 1, else s0's."""
    s0, s1 = all_batched(inputs, axes)
    n = max(s0.shape[1], s1.shape[1])
    s0, s1 = (_PAD((s,), {"pad_width": ((0, 0), (n - s.shape[1], 0)), "constant_value": 1})
              for s in (s0, s1))
    return where(s0 == 1, s1, s0), 0
