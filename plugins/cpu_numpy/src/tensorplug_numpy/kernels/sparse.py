"""Sparse kernels (TF semantics): SparseSegmentSum, SparseSegmentMean, SparseToDense,
SparseReshape, SparseFillEmptyRows. Vectorized with ``ufunc.at``, bincount and a stable sort."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import (
    check_index_bounds,
    check_nd_index_bounds,
    fill_empty_rows,
    sparse_reshape_indices,
    sparse_reshape_shape,
)

_INT64 = np.dtype(np.int64)


def _sparse_segment(mean: bool) -> Callable[..., Any]:
    name = "SparseSegmentMean" if mean else "SparseSegmentSum"

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        data, indices, ids = inputs
        n = attrs["num_segments"]
        if n is None:  # (TF.js: the last id + 1)
            n = int(ids[-1]) + 1 if ids.size else 0
        if ids.size:
            check_index_bounds(name, backend.name, indices, data.shape, 0, "data")
        keep = (ids >= 0) & (ids < n)
        at = ids[keep].astype(_INT64)
        out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
        np.add.at(out, at, data[indices[keep]])
        if mean:
            counts = np.maximum(np.bincount(at, minlength=n), 1).astype(data.dtype)
            out /= counts.reshape((n,) + (1,) * (data.ndim - 1))
        return out

    kernel.__name__ = name
    return kernel


def sparse_to_dense(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    indices, values, default = inputs
    shape = attrs["output_shape"]
    rows = indices.reshape(-1, len(shape))
    check_nd_index_bounds("SparseToDense", backend.name, rows, shape, "the output")
    out = np.full(shape, default, dtype=values.dtype)
    out[tuple(rows.T)] = values
    return out


def sparse_reshape(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    indices, shape, new_shape = inputs
    sparse_reshape_shape("SparseReshape", backend.name, shape, new_shape)  # (checks the sizes)
    return sparse_reshape_indices(np, indices, shape, new_shape)


def sparse_fill_empty_rows(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    indices, values, dense_shape, default = inputs
    check_nd_index_bounds("SparseFillEmptyRows", backend.name, indices, dense_shape.tolist(), "dense_shape")
    return fill_empty_rows(np, indices, values, int(dense_shape[0]) if dense_shape.size else 0, default)


KERNELS: dict[str, Callable[..., Any]] = {
    "SparseSegmentSum": _sparse_segment(False),
    "SparseSegmentMean": _sparse_segment(True),
    "SparseToDense": sparse_to_dense,
    "SparseReshape": sparse_reshape,
    "SparseFillEmptyRows": sparse_fill_empty_rows,
}
