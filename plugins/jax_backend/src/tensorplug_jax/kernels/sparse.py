"""Sparse kernels (TF semantics): SparseSegmentSum, SparseSegmentMean, SparseToDense,
SparseReshape, SparseFillEmptyRows.

Concrete indices are checked first (IndexOutOfRangeError, ShapeError), as on the numpy backend.
SparseSegment* without ``num_segments`` and SparseFillEmptyRows give outputs whose length
depends on the values: inside ``tp.jit`` they raise TracedValueError (pass num_segments);
SparseFillEmptyRows computes on the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tensorplug.errors import TracedValueError
from tensorplug.kernel_helpers import (
    check_index_bounds,
    check_nd_index_bounds,
    fill_empty_rows,
    sparse_reshape_indices,
    sparse_reshape_shape,
)
from tensorplug_jax.kernels._jit import is_traced, with_attrs


def _value_dependent(name: str, backend: Any, fix: str) -> TracedValueError:
    return TracedValueError(
        f"Kernel '{name}' on backend '{backend.name}': its output's length depends on the values of "
        f"its inputs, which a function being compiled by tp.jit does not have. {fix}")


def _sparse_segment(data: Any, indices: Any, segment_ids: Any, num_segments: int, mean: bool) -> Any:
    rows = data.at[indices].get(mode="fill")
    out = jax.ops.segment_sum(rows, segment_ids, num_segments=num_segments, mode="drop")
    if mean:
        counts = jax.ops.segment_sum(jnp.ones(segment_ids.shape, data.dtype), segment_ids,
                                     num_segments=num_segments, mode="drop")
        out = out / jnp.maximum(counts, 1).reshape((num_segments,) + (1,) * (data.ndim - 1))
    return out


_SPARSE_SEGMENT = with_attrs(_sparse_segment, static=("num_segments", "mean"))


def _segment_kernel(mean: bool) -> Callable[..., Any]:
    name = "SparseSegmentMean" if mean else "SparseSegmentSum"

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        data, indices, ids = inputs
        n = attrs["num_segments"]
        if n is None:
            if is_traced(ids):
                raise _value_dependent(name, backend, "Pass num_segments.")
            n = int(ids[-1]) + 1 if ids.size else 0
        if not is_traced(indices) and indices.size:
            check_index_bounds(name, backend.name, np.asarray(indices), data.shape, 0, "data")
        return _SPARSE_SEGMENT(inputs, {"num_segments": n, "mean": mean}, backend)

    kernel.__name__ = name
    return kernel


def _sparse_to_dense(sparse_indices: Any, sparse_values: Any, default_value: Any,
                     output_shape: tuple[int, ...]) -> Any:
    rows = sparse_indices.reshape(-1, len(output_shape))
    out = jnp.full(output_shape, default_value, dtype=sparse_values.dtype)
    return out.at[tuple(rows.T)].set(sparse_values, mode="drop", wrap_negative_indices=False)


_SPARSE_TO_DENSE = with_attrs(_sparse_to_dense, static=("output_shape",))


def sparse_to_dense(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    shape = attrs["output_shape"]
    if not is_traced(inputs[0]):
        rows = np.asarray(inputs[0]).reshape(-1, len(shape))
        check_nd_index_bounds("SparseToDense", backend.name, rows, shape, "the output")
    return _SPARSE_TO_DENSE(inputs, attrs, backend)


_SPARSE_RESHAPE = with_attrs(lambda *arrays: sparse_reshape_indices(jnp, *arrays))


def sparse_reshape(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    _, shape, new_shape = inputs
    if not is_traced(shape, new_shape):
        sparse_reshape_shape("SparseReshape", backend.name, np.asarray(shape).tolist(),
                             np.asarray(new_shape).tolist())
    return _SPARSE_RESHAPE(inputs, attrs, backend)


def sparse_fill_empty_rows(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    indices, values, dense_shape, default = inputs
    if is_traced(*inputs):
        raise _value_dependent("SparseFillEmptyRows", backend, "Call it outside tp.jit.")
    host = np.asarray(indices)
    dims = np.asarray(dense_shape).tolist()
    check_nd_index_bounds("SparseFillEmptyRows", backend.name, host, dims, "dense_shape")
    # on the host: its output shapes depend on the values, so compiled jax ops would compile for
    # every call (a dozen of them), where numpy's take microseconds
    out = fill_empty_rows(np, host, np.asarray(values), int(dims[0]) if dims else 0, np.asarray(default))
    return tuple(jnp.asarray(a) for a in out)


KERNELS: dict[str, Callable[..., Any]] = {
    "SparseSegmentSum": _segment_kernel(False),
    "SparseSegmentMean": _segment_kernel(True),
    "SparseToDense": sparse_to_dense,
    "SparseReshape": sparse_reshape,
    "SparseFillEmptyRows": sparse_fill_empty_rows,
}
