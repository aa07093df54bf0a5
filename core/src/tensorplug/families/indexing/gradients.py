"""Default gradients of the indexing kernels: StridedSlice and StridedSliceGrad are each
other's gradient, as are Gather and ScatterAdd. Integer indices take no gradient."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("StridedSlice", inputs=("x",))
def _strided_slice(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: kernel("StridedSliceGrad", dy, shape=x.shape, slices=attrs["slices"])}


@gradient("StridedSliceGrad")
def _strided_slice_grad(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"dy": lambda: kernel("StridedSlice", dy, slices=attrs["slices"])}


@gradient("Gather", inputs=("x", "indices"))
def _gather(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, indices = saved  # repeated indices accumulate, which is what ScatterAdd does
    return {"x": lambda: kernel("ScatterAdd", indices, dy, shape=x.shape, axis=attrs["axis"])}


@gradient("ScatterAdd", inputs=("indices",))
def _scatter_add(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (indices,) = saved
    return {"updates": lambda: kernel("Gather", dy, indices, axis=attrs["axis"])}
