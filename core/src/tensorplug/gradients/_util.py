"""Helpers gradients are written with: registration, broadcasting, kernels no op exposes,
axis bookkeeping."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..engine import make_caller
from ..registry.gradients import GradConfig, GradFunc, register_gradient
from ..registry.specs import get_kernel_spec
from ..tensor import Tensor

__all__ = ["unbroadcast", "gradient", "kernel", "slice_axis", "permute", "inverse_permutation"]


def unbroadcast(g: Tensor, shape: Sequence[int]) -> Tensor:
    """Sum `g` over the axes that broadcasting added or stretched, giving `shape`."""
    from ..ops.manipulation import reshape
    from ..ops.reductions import sum as sum_

    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1
    )
    return reshape(sum_(g, axis=axes), shape) if axes else reshape(g, shape)


def gradient(kernel_name: str, inputs: Sequence[str] = (),
             outputs: Sequence[str] = ()) -> Callable[[GradFunc], GradFunc]:
    """Decorator: register the function as the gradient of `kernel_name`, saving the named
    inputs and outputs (they arrive in ``saved`` in that order)."""
    def register(func: GradFunc) -> GradFunc:
        register_gradient(GradConfig(kernel_name, func, tuple(inputs), tuple(outputs)))
        return func
    return register


_callers: dict[str, Callable[..., Any]] = {}


def kernel(name: str, *inputs: Tensor, **attrs: Any) -> Tensor:
    """Run kernel `name` on `inputs` with `attrs` (completed and checked by its spec).

    For gradients that need an attribute no op exposes (Cumsum's ``reverse``, StridedSliceGrad,
    ScatterAdd). It dispatches like an op and is recorded on recording tapes, so a gradient
    written with it still runs on any backend and is itself differentiable."""
    spec = get_kernel_spec(name)
    call = _callers.get(name)
    if call is None:
        call = _callers[name] = make_caller(spec)
    result: Tensor = call(tuple(inputs), spec.normalize_attrs(attrs))
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
    from ..ops.manipulation import permute_dims

    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else permute_dims(x, perm)
