"""Helpers gradients are written with: registration, broadcasting, kernels no op exposes,
axis bookkeeping."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import KernelNotFoundError
from tensorplug.families.elementwise.ops import greater, where
from tensorplug.families.manipulation.ops import permute_dims
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.core_entries import declare_gradient
from tensorplug.registry.gradients import GradConfig, GradFunc
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["unbroadcast", "gradient", "kernel", "relu_grad", "slice_axis", "permute", "inverse_permutation"]


_SUM = Dispatcher("Sum")
_RESHAPE = Dispatcher("Reshape")
_RELU_GRAD = Dispatcher("ReluGrad")


def unbroadcast(g: Tensor, shape: Sequence[int]) -> Tensor:
    """Sum `g` over the axes that broadcasting added or stretched, giving `shape`."""
    shape = tuple(shape)
    g_shape = g._backend.shape_of(g._data)
    if g_shape == shape:
        return g
    lead = len(g_shape) - len(shape)
    stretched = tuple(lead + i for i, d in enumerate(shape) if d == 1 and g_shape[lead + i] != 1)
    if not stretched:  # only leading axes were added: one Sum gives the shape
        return _sum_leading(lead).unary(g)
    summed = _SUM((g,), {"axis": tuple(range(lead)) + stretched, "keepdims": True})
    return _RESHAPE((summed,), {"shape": shape})


@functools.cache
def _sum_leading(count: int) -> Dispatcher:
    """The Sum over the first `count` axes (one dispatcher per count: bias gradients' case)."""
    return Dispatcher("Sum", {"axis": tuple(range(count)), "keepdims": False})


def gradient(kernel_name: str, inputs: Sequence[str] = (),
             outputs: Sequence[str] = ()) -> Callable[[GradFunc], GradFunc]:
    """Decorator: declare the function as the gradient of `kernel_name`, saving the named
    inputs and outputs (they arrive in ``saved`` in that order)."""
    def register(func: GradFunc) -> GradFunc:
        declare_gradient(GradConfig(kernel_name, func, tuple(inputs), tuple(outputs)))
        return func
    return register


def kernel(name: str, *inputs: Tensor, **attrs: Any) -> Tensor:
    """Run kernel `name` on `inputs` with `attrs` (completed and checked by its spec).

    For gradients that need an attribute no op exposes (Cumsum's ``reverse``, StridedSliceGrad,
    ScatterAdd). It dispatches like an op and is recorded on recording tapes, so a gradient
    written with it still runs on any backend and is itself differentiable."""
    spec = get_kernel_spec(name)
    dispatcher = dispatcher_of(name)
    result: Tensor = dispatcher(inputs, spec.normalize_attrs(attrs))
    return result


def relu_grad(dy: Tensor, x: Tensor) -> Tensor:
    """The ReluGrad kernel: `dy` where `x` > 0, else 0 (`dy` of another dtype cast to x's first;
    the shapes are equal, a gradient's and its input's). On a backend without ReluGrad (one
    written before it existed), the ops Relu's gradient used before: Greater and Where."""
    if dy._dtype is not x._dtype:
        dy = dy.astype(x._dtype)
    try:
        result: Tensor = _RELU_GRAD.binary(dy, x)
    except KernelNotFoundError:  # (raised before anything ran: nothing else is dispatched here)
        return where(greater(x, 0.0), dy, 0.0)
    return result


def slice_axis(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    """``x[..., start:stop, ...]`` along the non-negative `axis` (step 1)."""
    slices = tuple((start, stop, 1) if i == axis else (0, d, 1) for i, d in enumerate(x.shape))
    return kernel("StridedSlice", x, slices=slices)


def inverse_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def permute(x: Tensor, perm: Sequence[int]) -> Tensor:
    """x with its axes permuted (x itself for the identity permutation)."""
    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else permute_dims(x, perm)
