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

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from tensorplug.errors import TracedValueError
from tensorplug.kernel_helpers import check_index_bounds, normalize_axis, slice_index
from tensorplug_jax.kernels._jit import is_traced, with_attrs

_ALL = slice(None)


def _strided_slice(x: Any, windows: tuple[tuple[int, int], ...], low: Any) -> Any:
    """The elements of `x` in one window per axis ((span, step): `span` elements from `low[i]`,
    every `step`-th of them, from the far end for a negative step). The spans shape the result;
    the starts are traced, so slicing a tensor at every index compiles once, not once each."""
    window = lax.dynamic_slice(x, [low[i] for i in range(x.ndim)], [span for span, _ in windows])
    return window[tuple(slice(None, None, step) for _, step in windows)]


_STRIDED_SLICE = with_attrs(_strided_slice, static=("windows",), traced=("low",))


def strided_slice(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    index = slice_index("StridedSlice", backend.name, attrs["slices"], x.shape)
    picked = [range(size)[s] for s, size in zip(index, x.shape)]
    if not x.ndim or not all(picked):  # (nothing to slice, or an empty result)
        return x[index]
    windows = tuple((abs(r[-1] - r[0]) + 1, r.step) for r in picked)
    return _STRIDED_SLICE(inputs, {"windows": windows, "low": np.array([min(r[0], r[-1]) for r in picked])},
                          backend)


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
    index = slice_index("StridedSliceGrad", backend.name, attrs["slices"], shape)
    return _STRIDED_SLICE_GRAD(inputs, {"shape": shape, "index": _hashable(index)}, backend)


def _gather(x: Any, indices: Any, axis: int) -> Any:
    return jnp.take(x, indices, axis=axis, mode="fill")


_GATHER = with_attrs(_gather, static=("axis",))


def gather(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, indices = inputs
    axis = attrs["axis"]
    if x.ndim and not is_traced(indices):
        check_index_bounds("Gather", backend.name, np.asarray(indices), x.shape, axis)
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
    if jnp.issubdtype(out.dtype, jnp.inexact):  # traced out-of-range indices: NaN, never silent
        size = shape[a]
        bad = indices >= size
        if jnp.issubdtype(indices.dtype, jnp.signedinteger):  # (-size would wrap in an unsigned dtype)
            bad = bad | (indices < -size)
        out = jnp.where(jnp.any(bad), jnp.nan, out)
    return out


_SCATTER_ADD = with_attrs(_scatter_add, static=("shape", "axis"))


def scatter_add(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices along axis; repeated indices accumulate."""
    indices = inputs[0]
    shape = attrs["shape"]
    normalize_axis("ScatterAdd", backend.name, attrs["axis"], len(shape))  # refuses a 0-d shape too
    if not is_traced(indices):
        check_index_bounds("ScatterAdd", backend.name, np.asarray(indices), shape, attrs["axis"], "output")
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


_ONE_HOT = with_attrs(_one_hot, static=("depth", "dtype"), traced=("on_value", "off_value"))


def one_hot(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """OneHot, its values given to the compiled function as scalars of the output dtype (a
    Python int past int64's range, such as uint64's largest, would not convert to a jax value)."""
    dt = attrs["dtype"].numpy
    values = {k: np.asarray(attrs[k], dtype=dt) for k in ("on_value", "off_value")}
    return _ONE_HOT(inputs, {**attrs, **values}, backend)


KERNELS: dict[str, Callable[..., Any]] = {
    "StridedSlice": strided_slice,
    "StridedSliceGrad": strided_slice_grad,
    "Gather": gather,
    "ScatterAdd": scatter_add,
    "NonZero": nonzero,
    "OneHot": one_hot,
}
