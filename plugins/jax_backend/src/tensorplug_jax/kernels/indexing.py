"""Indexing kernels: StridedSlice and StridedSliceGrad, Gather (take) and ScatterAdd (its
gradient), NonZero, OneHot.

Out-of-range indices never give a silent wrong answer. ``jnp.take`` and ``x.at[i]`` do not
raise (jax cannot raise from compiled code): gather fills, scatter drops, and plain indexing
clamps. So, eagerly (concrete indices) Gather and ScatterAdd check the indices first and raise
IndexOutOfRangeError naming the index, as the numpy backend does. Inside ``tp.jit`` (traced
indices, no values to check) Gather uses ``mode="fill"``: an out-of-range index gives NaN for
floats, the smallest integer for integers and True for bools; ScatterAdd of floats gives NaN
everywhere when any index is out of range. NonZero's output length depends on the values, so
it cannot run inside ``tp.jit`` (TracedValueError).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from tensorplug.errors import IndexOutOfRangeError, ShapeError, TracedValueError

from ._jit import is_traced, with_attrs

_EMPTY = slice(0, 0, 1)
_ALL = slice(None)


def _index(kernel: str, backend: Any, slices: Sequence[tuple[int, int, int]],
           shape: tuple[int, ...]) -> tuple[slice, ...]:
    """Slices reading exactly range(start, stop, step) on each axis; a range that leaves its
    axis (which jax would clip silently) is a ShapeError."""
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


def _strided_slice(x: Any, index: Any) -> Any:
    return x[_unhashable(index)]


_STRIDED_SLICE = with_attrs(_strided_slice, static=("index",))


def strided_slice(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    index = _index("StridedSlice", backend, attrs["slices"], x.shape)
    return _STRIDED_SLICE(inputs, {"index": _hashable(index)}, backend)


def _hashable(index: tuple[slice, ...]) -> tuple[tuple[Any, Any, Any], ...]:
    return tuple((s.start, s.stop, s.step) for s in index)


def _unhashable(index: tuple[tuple[Any, Any, Any], ...]) -> tuple[slice, ...]:
    return tuple(slice(*s) for s in index)


def _strided_slice_grad(dy: Any, shape: tuple[int, ...], index: Any) -> Any:
    out = jnp.zeros(shape, dtype=dy.dtype)
    target = out[_unhashable(index)]
    if target.shape != dy.shape:  # jax would broadcast dy silently
        raise ValueError(f"dy has shape {dy.shape}; the slices select {target.shape}")
    return out.at[_unhashable(index)].set(dy)


_STRIDED_SLICE_GRAD = with_attrs(_strided_slice_grad, static=("shape", "index"))


def strided_slice_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    shape = attrs["shape"]
    index = _index("StridedSliceGrad", backend, attrs["slices"], shape)
    return _STRIDED_SLICE_GRAD(inputs, {"shape": shape, "index": _hashable(index)}, backend)


def _out_of_range(kernel: str, backend: Any, indices: np.ndarray, axis: int, size: int,
                  shape: tuple[int, ...], what: str) -> IndexOutOfRangeError | None:
    """The error for the first index outside [-size, size), or None when all are inside."""
    bad = indices[(indices < -size) | (indices >= size)]
    if not bad.size:
        return None
    valid = f"valid indices are {-size}..{size - 1}" if size else "the axis is empty, so no index is"
    return IndexOutOfRangeError(
        f"Kernel '{kernel}' on backend '{backend.name}': index {int(bad.flat[0])} is out of range "
        f"for axis {axis} of size {size} ({what} shape {shape}); {valid}"
        + (f" ({bad.size} indices out of range)" if bad.size > 1 else "")
        + ". Check the indices, or clip them into range first."
    )


def _gather(x: Any, indices: Any, axis: int) -> Any:
    return jnp.take(x, indices, axis=axis, mode="fill")


_GATHER = with_attrs(_gather, static=("axis",))


def gather(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, indices = inputs
    axis = attrs["axis"]
    if x.ndim and not is_traced(indices):
        a = axis % x.ndim
        error = _out_of_range("Gather", backend, np.asarray(indices), axis, x.shape[a], x.shape, "x")
        if error is not None:
            raise error
    return _GATHER(inputs, attrs, backend)


def _scatter_add(indices: Any, updates: Any, shape: tuple[int, ...], axis: int) -> Any:
    a = axis % len(shape)
    expected = shape[:a] + indices.shape + shape[a + 1:]
    if updates.shape != expected:  # .at[].add would broadcast silently
        raise ValueError(f"updates have shape {updates.shape}, expected {expected}")
    if updates.dtype == jnp.bool_:  # numpy's bool addition: logical or
        counts = jnp.zeros(shape, jnp.int32).at[(_ALL,) * a + (indices,)].add(
            updates.astype(jnp.int32), mode="drop")
        return counts > 0
    out = jnp.zeros(shape, dtype=updates.dtype).at[(_ALL,) * a + (indices,)].add(updates, mode="drop")
    if jnp.issubdtype(out.dtype, jnp.floating):  # traced out-of-range indices: NaN, never silent
        size = shape[a]
        bad = jnp.any((indices < -size) | (indices >= size))
        out = jnp.where(bad, jnp.nan, out)
    return out


_SCATTER_ADD = with_attrs(_scatter_add, static=("shape", "axis"))


def scatter_add(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices along axis; repeated indices accumulate."""
    indices = inputs[0]
    shape = attrs["shape"]
    if not shape:
        raise ShapeError(f"Kernel 'ScatterAdd' on backend '{backend.name}': cannot scatter into a "
                         "0-d shape (Gather cannot take from one either).")
    if not is_traced(indices):
        a = attrs["axis"] % len(shape)
        error = _out_of_range("ScatterAdd", backend, np.asarray(indices), attrs["axis"], shape[a],
                              shape, "output")
        if error is not None:
            raise error
    return _SCATTER_ADD(inputs, attrs, backend)


def nonzero(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    if is_traced(x):
        raise TracedValueError(
            f"Kernel 'NonZero' on backend '{backend.name}': its output's length depends on the "
            "values of its input, which a function being compiled by tp.jit does not have. Call "
            "it outside tp.jit, or use a fixed-size formulation (e.g. tp.where with a mask)."
        )
    return jnp.flatnonzero(x).astype(np.int64)


def _one_hot(indices: Any, depth: int, dtype: Any, on_value: Any, off_value: Any) -> Any:
    """Rows with on_value at the index and off_value elsewhere; an index outside [0, depth)
    (negative ones included) matches no column and gives an all-off row."""
    dt = dtype.numpy
    hot = indices[..., None] == jnp.arange(depth)
    return jnp.where(hot, jnp.asarray(on_value).astype(dt), jnp.asarray(off_value).astype(dt))


KERNELS: dict[str, Callable[..., Any]] = {
    "StridedSlice": strided_slice,
    "StridedSliceGrad": strided_slice_grad,
    "Gather": gather,
    "ScatterAdd": scatter_add,
    "NonZero": nonzero,
    "OneHot": with_attrs(_one_hot, static=("depth", "dtype"), traced=("on_value", "off_value")),
}
