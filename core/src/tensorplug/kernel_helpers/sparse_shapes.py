"""n-d index checks and sparse-shape arithmetic shared by both backends' GatherNd, ScatterNd,
TensorScatterUpdate, SparseReshape and SparseFillEmptyRows kernels (public through
``kernel_helpers``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tensorplug.errors import IndexOutOfRangeError, ShapeError

if TYPE_CHECKING:  # (numpy.typing, for annotations only: ~1 ms of import tensorplug)
    import numpy.typing as npt

__all__ = ["check_nd_index_bounds", "fill_empty_rows", "sparse_reshape_indices", "sparse_reshape_shape"]

def check_nd_index_bounds(kernel: str, backend: str, indices: npt.ArrayLike, shape: Sequence[int],
                          what: str = "params") -> None:
    """Raise IndexOutOfRangeError naming the first row of n-d `indices` (last axis: one index per
    leading axis of `shape`) with an index outside [0, size) of its axis; None if all are inside."""
    indices = np.asarray(indices)
    k = indices.shape[-1] if indices.ndim else 0
    sizes = np.asarray(tuple(shape)[:k], dtype=np.int64)
    bad = ((indices < 0) | (indices >= sizes)).reshape(-1, k) if k else np.zeros((0, 0), bool)
    rows = np.flatnonzero(bad.any(axis=1))
    if not rows.size:
        return
    row = indices.reshape(-1, k)[rows[0]]
    axis = int(np.flatnonzero(bad[rows[0]])[0])
    raise IndexOutOfRangeError(
        f"Kernel '{kernel}' on backend '{backend}': index {row.tolist()} is out of range for {what} of "
        f"shape {tuple(shape)} (axis {axis} has size {int(sizes[axis])}; valid indices are 0.."
        f"{int(sizes[axis]) - 1}, negative ones are not counted from the end)"
        + (f" ({rows.size} rows out of range)" if rows.size > 1 else "")
        + ". Check the indices, or clip them into range first."
    )


def sparse_reshape_shape(kernel: str, backend: str, input_shape: Sequence[int],
                         new_shape: Sequence[int]) -> tuple[int, ...]:
    """`new_shape` with its one -1 (if any) inferred from the size of `input_shape`; ShapeError
    naming the kernel for two -1s, another negative size or a size that differs."""
    size = math.prod(int(d) for d in input_shape)
    new = [int(d) for d in new_shape]
    unknown = [i for i, d in enumerate(new) if d == -1]
    known = math.prod(d for d in new if d != -1)
    if len(unknown) > 1 or any(d < -1 for d in new):
        raise ShapeError(f"Kernel '{kernel}' on backend '{backend}': new_shape {tuple(new)} may hold one "
                         "-1 and otherwise sizes >= 0.")
    if unknown and known and size % known == 0:
        new[unknown[0]] = size // known
    if math.prod(new) != size or (unknown and not known):
        raise ShapeError(f"Kernel '{kernel}' on backend '{backend}': cannot reshape a sparse tensor of "
                         f"dense shape {tuple(int(d) for d in input_shape)} ({size} elements) to "
                         f"{tuple(int(d) for d in new_shape)}; the sizes must multiply to {size}.")
    return tuple(new)


def sparse_reshape_indices(xp: Any, indices: Any, shape: Any, new_shape: Any) -> tuple[Any, Any]:
    """SparseReshape in the array namespace `xp` (numpy, jax.numpy), also on traced values:
    the (n, rank) int64 `indices` of a sparse tensor of dense `shape` as indices of `new_shape`
    (its one -1 inferred), and that shape. Check sizes first with ``sparse_reshape_shape``."""
    size = xp.prod(shape)
    known = xp.prod(xp.where(new_shape == -1, 1, new_shape))
    out_shape = xp.where(new_shape == -1, size // xp.maximum(known, 1), new_shape)

    def strides(dims: Any) -> Any:  # row-major, in elements
        return xp.cumprod(xp.concatenate([dims, xp.ones(1, dims.dtype)])[::-1])[::-1][1:]

    linear = xp.sum(indices * strides(shape), axis=1)
    out = (linear[:, None] // strides(out_shape)) % xp.maximum(out_shape, 1)
    return out.reshape(indices.shape[0], out_shape.shape[0]), out_shape


def fill_empty_rows(xp: Any, indices: Any, values: Any, n_rows: int, default: Any) -> tuple[Any, ...]:
    """SparseFillEmptyRows in the array namespace `xp` on concrete values (the output length
    depends on them): rows in order, each keeping its entries in input order, each empty row given
    one `default` at column 0. Returns (indices, values, empty_row_indicator, reverse_index_map)."""
    n, rank = indices.shape
    rows = indices[:, 0] if rank else xp.zeros(n, indices.dtype)
    counts = xp.bincount(rows, minlength=n_rows)
    empty = counts == 0
    sizes = xp.maximum(counts, 1)
    starts = xp.cumsum(sizes) - sizes
    order = xp.argsort(rows, stable=True)
    ranks = xp.arange(n) - (xp.cumsum(counts) - counts)[rows[order]]
    reverse = (starts[rows[order]] + ranks)[xp.argsort(order)]  # (argsort(order) inverts it)
    empty_rows = xp.flatnonzero(empty)
    fill = xp.zeros((empty_rows.shape[0], rank), indices.dtype)
    if rank:
        fill = xp.concatenate([empty_rows[:, None].astype(indices.dtype), fill[:, 1:]], axis=1)
    place = xp.argsort(xp.concatenate([reverse, starts[empty_rows]]))
    out_indices = xp.concatenate([indices, fill])[place]
    out_values = xp.concatenate([values, xp.full(empty_rows.shape[0], default, dtype=values.dtype)])[place]
    return out_indices, out_values, empty, reverse.astype(indices.dtype)
