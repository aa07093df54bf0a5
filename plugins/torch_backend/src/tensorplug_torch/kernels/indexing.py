"""Indexing kernels: StridedSlice and StridedSliceGrad, Gather (index_select) and ScatterAdd
(its gradient, index_add), NonZero, OneHot.

Slices arrive normalized, one ``(start, stop, step)`` per axis as ``slice.indices(size)``
gives them (checked by ``kernel_helpers.slice_index``). torch slices with positive steps only:
a negative step reads the same elements with a positive one, then flips that axis. Gather and
ScatterAdd count negative indices from the end and name an index out of range
(IndexOutOfRangeError, ``kernel_helpers.check_index_bounds``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from tensorplug.kernel_helpers import check_index_bounds, normalize_axis, slice_index
from tensorplug_torch.backend import torch_dtype

_EMPTY = slice(0, 0, 1)


def forward_slices(kernel: str, backend: Any, slices: Sequence[tuple[int, int, int]],
                   shape: Sequence[int]) -> tuple[tuple[slice, ...], tuple[int, ...]]:
    """The positive-step slices reading exactly the elements of `slices` on `shape`, and the
    axes to flip after reading them (those of a negative step); `slices` checked first."""
    slice_index(kernel, backend.name, slices, shape)  # (raises for wrong slices)
    index, flips = [], []
    for axis, (start, stop, step) in enumerate(slices):
        r = range(start, stop, step)
        if not r:
            index.append(_EMPTY)
        elif step > 0:
            index.append(slice(r[0], r[-1] + 1, step))
        else:
            index.append(slice(r[-1], r[0] + 1, -step))
            flips.append(axis)
    return tuple(index), tuple(flips)


def strided_slice(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    index, flips = forward_slices("StridedSlice", backend, attrs["slices"], x.shape)
    out = x[index + (Ellipsis,)]
    return torch.flip(out, flips) if flips else out


def strided_slice_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy = inputs[0]
    shape = tuple(attrs["shape"])
    index, flips = forward_slices("StridedSliceGrad", backend, attrs["slices"], shape)
    out = torch.zeros(shape, dtype=dy.dtype, device=dy.device)
    target = out[index + (Ellipsis,)]
    if target.shape != dy.shape:  # torch would broadcast dy silently
        raise ValueError(f"dy has shape {tuple(dy.shape)}; the slices select {tuple(target.shape)}")
    target.copy_(torch.flip(dy, flips) if flips else dy)  # (writes `out`, made here)
    return out


def _from_end(indices: torch.Tensor, size: int) -> torch.Tensor:
    """int64 indices, negative ones counted from the end of an axis of `size`."""
    indices = indices.to(torch.int64)
    return torch.where(indices < 0, indices + size, indices)


def gather(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, indices = inputs
    a = normalize_axis("Gather", backend.name, attrs["axis"], x.ndim)
    size = x.shape[a]
    check_index_bounds("Gather", backend.name, indices.cpu(), x.shape, attrs["axis"])  # names the index
    flat = torch.index_select(x, a, _from_end(indices, size).reshape(-1))
    return flat.reshape(x.shape[:a] + indices.shape + x.shape[a + 1:])


def scatter_add(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices along axis; repeated indices accumulate."""
    indices, updates = inputs
    shape = tuple(attrs["shape"])
    a = normalize_axis("ScatterAdd", backend.name, attrs["axis"], len(shape))
    expected = shape[:a] + tuple(indices.shape) + shape[a + 1:]
    if tuple(updates.shape) != expected:  # index_add would take other shapes
        raise ValueError(f"updates have shape {tuple(updates.shape)}, expected {expected}")
    check_index_bounds("ScatterAdd", backend.name, indices.cpu(), shape, attrs["axis"], "output")
    rows = updates.reshape(shape[:a] + (indices.numel(),) + shape[a + 1:])
    at = _from_end(indices, shape[a]).reshape(-1)
    if updates.dtype == torch.bool:  # (bools accumulate as "or": added as integers)
        counts = torch.zeros(shape, dtype=torch.int64, device=updates.device)
        return counts.index_add_(a, at, rows.long()) != 0
    return torch.zeros(shape, dtype=updates.dtype, device=updates.device).index_add_(a, at, rows)


def nonzero(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.nonzero(inputs[0].reshape(-1)).reshape(-1)


def one_hot(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """Rows with on_value at the index and off_value elsewhere; an index outside [0, depth)
    (negative ones included) matches no column and gives an all-off row."""
    indices = inputs[0]
    dtype = torch_dtype(attrs["dtype"], "OneHot")
    hot = indices[..., None] == torch.arange(attrs["depth"], device=indices.device)
    on, off = attrs["on_value"], attrs["off_value"]
    if on == 1 and off == 0:
        return hot.to(dtype)
    return torch.where(hot, _scalar(on, dtype, indices.device), _scalar(off, dtype, indices.device))


def _scalar(value: Any, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A Python number as a 0-d tensor of `dtype`, cast from its own type at full width, as numpy
    casts it (torch.tensor(0.1) would be float32: 0.10000000149 in a float64 tensor)."""
    wide = next(w for kind, w in _WIDEST if isinstance(value, kind))
    return torch.tensor(value, dtype=wide, device=device).to(dtype)


#: a Python number's type (bool before int: a bool is an int) and the torch dtype holding it whole
_WIDEST = ((bool, torch.bool), (int, torch.int64), (float, torch.float64), (complex, torch.complex128))


KERNELS: dict[str, Callable[..., Any]] = {
    "StridedSlice": strided_slice,
    "StridedSliceGrad": strided_slice_grad,
    "Gather": gather,
    "ScatterAdd": scatter_add,
    "NonZero": nonzero,
    "OneHot": one_hot,
}
