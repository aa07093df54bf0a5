"""Indexing kernels: StridedSlice and StridedSliceGrad, Gather (take) and ScatterAdd (its
gradient), NonZero, OneHot.

Slices arrive normalized, one ``(start, stop, step)`` per axis as ``slice.indices(size)``
gives them; the elements read are exactly ``range(start, stop, step)``. Gather and ScatterAdd
turn numpy's IndexError into tensorplug's IndexOutOfRangeError naming the offending index.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import check_index_bounds, normalize_axis, slice_index
from tensorplug_numpy.kernels._kernel import Kernel

_ALL = slice(None)
_INT64 = np.dtype(np.int64)


def strided_slice(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return x[slice_index("StridedSlice", backend.name, attrs["slices"], x.shape)]


def strided_slice_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy = inputs[0]
    shape = attrs["shape"]
    out = np.zeros(shape, dtype=dy.dtype)
    # the Ellipsis keeps a view even of a 0-d `out` (out[()] would be a scalar)
    target = out[slice_index("StridedSliceGrad", backend.name, attrs["slices"], shape) + (Ellipsis,)]
    if target.shape != dy.shape:  # numpy would broadcast dy silently
        raise ValueError(f"dy has shape {dy.shape}; the slices select {target.shape}")
    target[...] = dy
    return out


def gather(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, indices = inputs
    axis = attrs["axis"]
    try:
        return np.take(x, indices, axis=axis)
    except np.exceptions.AxisError:
        raise  # an invalid axis: the engine asks the spec why
    except IndexError:
        check_index_bounds("Gather", backend.name, indices, x.shape, axis)  # names the index
        raise


def scatter_add(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices along axis; repeated indices accumulate."""
    indices, updates = inputs
    shape = attrs["shape"]
    axis = attrs["axis"]
    a = normalize_axis("ScatterAdd", backend.name, axis, len(shape))
    expected = shape[:a] + indices.shape + shape[a + 1:]
    if updates.shape != expected:  # np.add.at would broadcast silently
        raise ValueError(f"updates have shape {updates.shape}, expected {expected}")
    out = np.zeros(shape, dtype=updates.dtype)
    try:
        np.add.at(out, (_ALL,) * a + (indices,), updates)
    except IndexError:
        check_index_bounds("ScatterAdd", backend.name, indices, shape, axis, "output")
        raise
    return out


def nonzero(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.flatnonzero(inputs[0]).astype(_INT64, copy=False)


def one_hot(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """Rows with on_value at the index and off_value elsewhere; an index outside [0, depth)
    (negative ones included) matches no column and gives an all-off row."""
    indices = np.asarray(inputs[0])
    dtype = attrs["dtype"].numpy
    hot = indices[..., None] == np.arange(attrs["depth"])
    on, off = attrs["on_value"], attrs["off_value"]
    if on == 1 and off == 0:
        return hot.astype(dtype)
    return np.where(hot, np.asarray(on).astype(dtype), np.asarray(off).astype(dtype))


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    # (those that only move data or compare raise no floating-point warning: no switch)
    "StridedSlice": Kernel(strided_slice, handles_warnings=True),
    "StridedSliceGrad": Kernel(strided_slice_grad, handles_warnings=True),
    "Gather": Kernel(gather, handles_warnings=True),
    "ScatterAdd": scatter_add,  # (adds)
    "NonZero": Kernel(nonzero, handles_warnings=True),
    "OneHot": Kernel(one_hot, handles_warnings=True),
}
