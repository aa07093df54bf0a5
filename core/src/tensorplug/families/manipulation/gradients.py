"""Default gradients of the shape-manipulation kernels: Reshape, Transpose, BroadcastTo,
Concat, Stack, Pad, Roll. Each moves dy back to where the input's elements went."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import (
    gradient,
    inverse_permutation,
    kernel,
    slice_axis,
    unbroadcast,
)
from tensorplug.kernels.shape_rules import normalize_axis

Grads = Mapping[str, Callable[[], Any]]


@gradient("Reshape", inputs=("x",))
def _reshape(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.reshape(dy, x.shape)}


@gradient("Transpose")
def _transpose(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    perm = attrs["perm"]
    inverse = inverse_permutation([p % len(perm) for p in perm])
    return {"x": lambda: tp.permute_dims(dy, inverse)}


@gradient("BroadcastTo", inputs=("x",))
def _broadcast_to(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: unbroadcast(dy, x.shape)}


@gradient("Concat", inputs=("xs",))
def _concat(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    xs = saved  # a variadic input saves every tensor passed under it

    def parts() -> list[Tensor]:
        axis = normalize_axis(attrs["axis"], dy.ndim)
        out, start = [], 0
        for x in xs:
            stop = start + x.shape[axis]
            out.append(slice_axis(dy, axis, start, stop))
            start = stop
        return out

    return {"xs": parts}


@gradient("Stack")
def _stack(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    def parts() -> list[Tensor]:
        axis = normalize_axis(attrs["axis"], dy.ndim)
        shape = dy.shape[:axis] + dy.shape[axis + 1:]
        return [tp.reshape(slice_axis(dy, axis, i, i + 1), shape) for i in range(dy.shape[axis])]

    return {"xs": parts}


@gradient("Pad")
def _pad(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    def dx() -> Tensor:
        slices = tuple((lo, d - hi, 1) for d, (lo, hi) in zip(dy.shape, attrs["pad_width"]))
        return kernel("StridedSlice", dy, slices=slices)

    return {"x": dx}


@gradient("Roll")
def _roll(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: tp.roll(dy, tuple(-s for s in attrs["shift"]), axis=attrs["axis"])}
