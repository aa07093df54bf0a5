"""Indexing kernels: StridedSlice and StridedSliceGrad, Gather (take) and ScatterAdd (its
gradient), NonZero, OneHot.

Slices arrive normalized, one ``(start, stop, step)`` per axis as ``slice.indices(size)``
gives them; the elements read are exactly ``range(start, stop, step)``. Gather and ScatterAdd
turn numpy's IndexError into tensorplug's IndexOutOfRangeError naming the offending index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.errors import IndexOutOfRangeError, ShapeError

_EMPTY = slice(0, 0, 1)
_ALL = slice(None)
_INT64 = np.dtype(np.int64)


def _numpy_index(kernel: str, backend: Any, slices: Sequence[tuple[int, int, int]],
                 shape: tuple[int, ...]) -> tuple[slice, ...]:
    """numpy slices reading exactly range(start, stop, step) on each axis; a range that leaves
    its axis (which numpy would silently clip) is a ShapeError."""
    if len(slices) != len(shape):
        raise ValueError(f"{len(slices)} slices for a {len(shape)}-d input")
    index = []
    for axis, ((start, stop, step), size) in enumerate(zip(slices, shape)):
        r = range(start, stop, step)
        if not r:
            index.append(_EMPTY)
        elif 0 <= r[0] < size and 0 <= r[-1] < size:
            index.append(slice(start, stop if stop >= 0 else None, step))
        else:
            raise ShapeError(
                f"Kernel '{kernel}' on backend '{backend.name}': slice {(start, stop, step)} reads "
                f"indices {r[0]}..{r[-1]}, outside axis {axis} of size {size} (shape {shape}); "
                "normalize slices with slice.indices(size)."
            )
    return tuple(index)


def strided_slice(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return x[_numpy_index("StridedSlice", backend, attrs["slices"], x.shape)]


def strided_slice_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy = inputs[0]
    shape = attrs["shape"]
    out = np.zeros(shape, dtype=dy.dtype)
    # the Ellipsis keeps a view even of a 0-d `out` (out[()] would be a scalar)
    target = out[_numpy_index("StridedSliceGrad", backend, attrs["slices"], shape) + (Ellipsis,)]
    if target.shape != dy.shape:  # numpy would broadcast dy silently
        raise ValueError(f"dy has shape {dy.shape}; the slices select {target.shape}")
    target[...] = dy
    return out


def _out_of_range(kernel: str, backend: Any, indices: Any, axis: int, size: int,
                  shape: tuple[int, ...], what: str) -> IndexOutOfRangeError:
    indices = np.asarray(indices)
    bad = indices[(indices < -size) | (indices >= size)]
    shown = int(bad.flat[0]) if bad.size else "?"
    valid = f"valid indices are {-size}..{size - 1}" if size else "the axis is empty, so no index is"
    return IndexOutOfRangeError(
        f"Kernel '{kernel}' on backend '{backend.name}': index {shown} is out of range for axis "
        f"{axis} of size {size} ({what} shape {shape}); {valid}"
        + (f" ({bad.size} indices out of range)" if bad.size > 1 else "")
        + ". Check the indices, or clip them into range first."
    )


def gather(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, indices = inputs
    axis = attrs["axis"]
    try:
        return np.take(x, indices, axis=axis)
    except np.exceptions.AxisError:
        raise  # an invalid axis: the engine asks the spec why
    except IndexError as exc:
        a = axis % x.ndim
        raise _out_of_range("Gather", backend, indices, axis, x.shape[a], x.shape, "x") from exc


def scatter_add(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices along axis; repeated indices accumulate."""
    indices, updates = inputs
    shape = attrs["shape"]
    axis = attrs["axis"]
    if not shape:
        raise ShapeError(f"Kernel 'ScatterAdd' on backend '{backend.name}': cannot scatter into a "
                         "0-d shape (Gather cannot take from one either).")
    a = axis % len(shape)
    expected = shape[:a] + indices.shape + shape[a + 1:]
    if updates.shape != expected:  # np.add.at would broadcast silently
        raise ValueError(f"updates have shape {updates.shape}, expected {expected}")
    out = np.zeros(shape, dtype=updates.dtype)
    try:
        np.add.at(out, (_ALL,) * a + (indices,), updates)
    except IndexError as exc:
        raise _out_of_range("ScatterAdd", backend, indices, axis, shape[a], shape, "output") from exc
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


KERNELS: dict[str, Callable[..., Any]] = {
    "StridedSlice": strided_slice,
    "StridedSliceGrad": strided_slice_grad,
    "Gather": gather,
    "ScatterAdd": scatter_add,
    "NonZero": nonzero,
    "OneHot": one_hot,
}
