"""Reduction kernels: Sum, Prod, Max, Min, EuclideanNorm (over a tuple of axes or all), ArgMax,
ArgMin (one axis or the flattened input), Cumsum, Cumprod (one axis, exclusive and/or reversed).

Sums and products of bool and signed integers accumulate in int64, as the spec says; those of
uint8 would answer in uint64, which the backend does not hold, so they serve every held dtype
but uint8. torch reads an empty tuple of dims as "all of them": the kernels reduce over
nothing then themselves. A 0-d input takes axis 0 or -1 (torch does too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import torch

from tensorplug.dtypes import ALL_DTYPES, bool_, int8, int16, int32, uint8, uint16, uint32, uint64
from tensorplug.extend import DirectCall
from tensorplug_torch.kernels._kernel import Kernel

#: input dtype -> the dtype sums and products answer in, where it is not the input's
_WIDE = {torch.bool: torch.int64, torch.int8: torch.int64, torch.int16: torch.int64,
         torch.int32: torch.int64}
_HALF = (torch.float16, torch.bfloat16)
#: what Sum, Prod, Cumsum and Cumprod serve: every dtype whose accumulator the backend holds
ACCUMULATING = tuple(d for d in ALL_DTYPES if d not in (uint8, uint16, uint32, uint64))
#: the dtypes whose sums and products widen: the direct calls serve the others (their torch
#: function answers in the input's dtype)
_WIDENED = (bool_, int8, int16, int32)


def _sum(x: torch.Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> torch.Tensor:
    dtype = _WIDE.get(x.dtype)
    if axis == ():
        return x if dtype is None else x.to(dtype)
    return torch.sum(x, dim=axis, keepdim=keepdims, dtype=dtype)


def _prod(x: torch.Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> torch.Tensor:
    """torch.prod over one dim at a time (it takes no tuple), from the last."""
    dtype = _WIDE.get(x.dtype, x.dtype)
    if axis is None:
        out = torch.prod(x, dtype=dtype)
        return out.reshape((1,) * x.ndim) if keepdims else out
    out = x.to(dtype)
    for a in sorted((a % max(x.ndim, 1) for a in axis), reverse=True):
        out = torch.prod(out, dim=a, keepdim=keepdims) if x.ndim else out
    return out


def _extremum(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    def reduce(x: torch.Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> torch.Tensor:
        if axis == ():
            return x
        return fn(x, dim=() if axis is None else axis, keepdim=keepdims)
    reduce.__name__ = fn.__name__
    return reduce


def _reduction(reduce: Callable[..., torch.Tensor], dtypes: tuple[Any, ...] | None,
               direct: Callable[[Mapping[str, Any]], Callable[[Any], Any] | None]) -> Kernel:
    """The kernel of `reduce(x, axis, keepdims)`, with `direct` as its direct call's specialize
    for the dtypes that do not widen."""
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return reduce(inputs[0], attrs["axis"], attrs["keepdims"])
    kernel.__name__ = reduce.__name__
    served = tuple(d for d in (dtypes or ALL_DTYPES) if d not in _WIDENED)
    return Kernel(kernel, DirectCall(served, specialize=direct), dtypes)


def _torch_call(fn: Callable[..., torch.Tensor], every_axis: Callable[..., torch.Tensor] | None = None
                ) -> Callable[[Mapping[str, Any]], Callable[[Any], Any] | None]:
    """attrs -> `fn` with the attributes bound (`every_axis` itself over every axis without
    keepdims: torch's function, called in C); None for an empty tuple of axes, which torch
    reads as every axis (the kernel function reduces over nothing then)."""
    def specialize(attrs: Mapping[str, Any]) -> Callable[[Any], Any] | None:
        axis, keepdims = attrs["axis"], attrs["keepdims"]
        if axis == ():
            return None
        if axis is None and not keepdims and every_axis is not None:
            return every_axis
        return functools.partial(fn, dim=() if axis is None else axis, keepdim=keepdims)
    return specialize


def _bound(reduce: Callable[..., torch.Tensor]) -> Callable[[Mapping[str, Any]], Callable[[Any], Any]]:
    """attrs -> `reduce` with the attributes bound."""
    def specialize(attrs: Mapping[str, Any]) -> Callable[[Any], Any]:
        return functools.partial(reduce, axis=attrs["axis"], keepdims=attrs["keepdims"])
    return specialize


def euclidean_norm(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """sqrt(sum |x|^2) over `axis` (None: all), real; half floats in float32 (their squares
    overflow or round off early), answered in their own dtype."""
    x = inputs[0]
    axis, keepdims = attrs["axis"], attrs["keepdims"]
    if axis == ():
        return torch.abs(x)
    wide = torch.float32 if x.dtype in _HALF else None
    out = torch.linalg.vector_norm(x, 2, dim=axis, keepdim=keepdims, dtype=wide)
    return out.to(x.dtype) if wide is not None else out


def _arg(fn: Callable[..., torch.Tensor]) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x = inputs[0]
        if x.dtype == torch.bool:  # (torch's argmax and argmin take no bools)
            x = x.to(torch.uint8)
        axis, keepdims = attrs["axis"], attrs["keepdims"]
        if axis is None:
            out = fn(x)
            return out.reshape((1,) * x.ndim) if keepdims else out
        return fn(x, dim=axis, keepdim=keepdims)
    kernel.__name__ = fn.__name__
    return kernel


def _cumulative(fn: Callable[..., torch.Tensor], identity: int) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x = inputs[0]
        dtype = _WIDE.get(x.dtype, x.dtype)
        if x.ndim == 0:
            if attrs["exclusive"]:
                return torch.full((), identity, dtype=dtype, device=x.device)
            return x.to(dtype)
        axis = attrs["axis"] % x.ndim
        if attrs["reverse"]:
            x = torch.flip(x, (axis,))
        y = fn(x, axis, dtype=dtype)
        if attrs["exclusive"] and y.shape[axis]:  # moved one step along the axis, the identity first
            first = torch.full_like(y.narrow(axis, 0, 1), identity)
            y = torch.cat([first, y.narrow(axis, 0, y.shape[axis] - 1)], axis)
        return torch.flip(y, (axis,)) if attrs["reverse"] else y
    kernel.__name__ = fn.__name__
    return kernel


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Sum": _reduction(_sum, ACCUMULATING, _torch_call(torch.sum, torch.sum)),
    "Prod": _reduction(_prod, ACCUMULATING, _bound(_prod)),
    # (empty axes raise; the spec explains why)
    "Max": _reduction(_extremum(torch.amax), None, _torch_call(torch.amax, torch.max)),
    "Min": _reduction(_extremum(torch.amin), None, _torch_call(torch.amin, torch.min)),
    "EuclideanNorm": euclidean_norm,
    "ArgMax": _arg(torch.argmax),
    "ArgMin": _arg(torch.argmin),
    "Cumsum": Kernel(_cumulative(torch.cumsum, 0), dtypes=ACCUMULATING),
    "Cumprod": Kernel(_cumulative(torch.cumprod, 1), dtypes=ACCUMULATING),
}
