"""Sparse ops, public as ``tp.sparse`` (TF semantics; a sparse tensor is its int64 (n, rank)
indices, its (n,) values and its dense shape): segment_sum and segment_mean (TF's
sparse_segment_*), to_dense, reshape, fill_empty_rows. The segment ops (in data) and to_dense
(in values and default_value) are differentiable, as in TF (TF.js has no gradient for them);
reshape and fill_empty_rows are not. Indices the op can see are
checked (IndexOutOfRangeError, ShapeError); fill_empty_rows, and the segment ops without
num_segments, have outputs whose length depends on the values: they cannot run inside
``tp.jit`` on a compiling backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tensorplug.backends.lifecycle import active_backend
from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import FLOAT_DTYPES, DType, int64
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError
from tensorplug.families._common.convert import asarray, astype, caller
from tensorplug.families.scatter_nd.ops import host_values, int_values
from tensorplug.families.sparse.spec import sparse_segment_shape, sparse_shapes, sparse_to_dense_shape
from tensorplug.kernels.dispatcher import Dispatcher
from tensorplug.kernels.shape_rules import fitting_value

__all__ = ["segment_sum", "segment_mean", "to_dense", "reshape", "fill_empty_rows"]

_SEGMENT_SUM = caller("SparseSegmentSum")
_SEGMENT_MEAN = caller("SparseSegmentMean")
_TO_DENSE = caller("SparseToDense")
_RESHAPE = caller("SparseReshape")
_FILL_EMPTY_ROWS = caller("SparseFillEmptyRows")


class FillEmptyRowsResult(NamedTuple):
    """fill_empty_rows's result (TF's four outputs)."""

    indices: Tensor
    values: Tensor
    empty_row_indicator: Tensor
    reverse_index_map: Tensor


def _int64(op: str, value: Any, arg: str) -> Tensor:
    idx = int_values(op, value, arg)
    return astype(idx, int64) if isinstance(idx, Tensor) and idx.dtype != int64 else asarray(idx)


def _fill_value(op: str, value: Any, dtype: DType) -> Tensor:
    """default_value as a 0-d tensor of `dtype`: a tensor cast (it keeps its gradient), a number
    checked to fit."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise ShapeError(f"{op}: default_value must be 0-d, got shape {value.shape}.")
        return value if value.dtype == dtype else astype(value, dtype)
    number = valid.scalar(value, op, "default_value")
    fitting_value(number, dtype, "default_value", op)
    return asarray(np.asarray(number, dtype.numpy))


def _outside(op: str, what: str, value: int, size: int) -> IndexOutOfRangeError:
    return IndexOutOfRangeError(f"{op}: {what} {value} is out of range (valid: 0..{size - 1}).")


def _segment(op: str, kernel: Dispatcher, data: Any, indices: Any, segment_ids: Any,
             num_segments: int | None) -> Tensor:
    data = asarray(data)
    if data.dtype not in FLOAT_DTYPES:
        raise DTypeError(f"{op}: data must be floating, got {data.dtype.name}; cast it, e.g. "
                         "data.astype(tp.float32).")
    idx, ids = int_values(op, indices), int_values(op, segment_ids, "segment_ids")
    n = None if num_segments is None else valid.size(num_segments, op, "num_segments")
    shape = sparse_segment_shape(data.shape, idx.shape, ids.shape, n, op)
    rows, seg = host_values(idx), host_values(ids)
    if n is None and seg is not None:  # (num_segments=None: the last id + 1 rows)
        shape = (int(seg.max()) + 1 if seg.size else 0,) + shape[1:]
    if shape[0] >= 0:  # (XLA aborts the process past int64's elements: refused first)
        valid.checked_size(shape, data._backend, op)
    if rows is not None and rows.size and (rows.min() < 0 or rows.max() >= data.shape[0]):
        raise _outside(op, "index", int(rows.min() if rows.min() < 0 else rows.max()), data.shape[0])
    if seg is not None and seg.size:
        if seg.min() < 0 or (np.diff(seg) < 0).any():
            raise ShapeError(f"{op}: segment_ids must be sorted and >= 0, got {seg.tolist()}.")
        if n is not None and seg.max() >= n:
            raise _outside(op, "segment id", int(seg.max()), n)
    return kernel((data, asarray(idx), asarray(ids)), {"num_segments": n})


def segment_sum(data: Any, indices: Any, segment_ids: Any, num_segments: int | None = None) -> Tensor:
    """out[s] = sum of data[indices[j]] over j with segment_ids[j] == s (sorted ids; 0 for an
    empty segment); num_segments rows, or the last id + 1."""
    return _segment("segment_sum", _SEGMENT_SUM, data, indices, segment_ids, num_segments)


def segment_mean(data: Any, indices: Any, segment_ids: Any, num_segments: int | None = None) -> Tensor:
    """out[s] = mean of data[indices[j]] over j with segment_ids[j] == s (sorted ids; 0 for an
    empty segment); num_segments rows, or the last id + 1."""
    return _segment("segment_mean", _SEGMENT_MEAN, data, indices, segment_ids, num_segments)


def to_dense(sparse_indices: Any, sparse_values: Any, output_shape: int | Sequence[int],
             default_value: Any = 0) -> Tensor:
    """A dense tensor of `output_shape` holding default_value, and sparse_values (one, or one per
    index) at the distinct sparse_indices ((n, rank), or (n,) for a 1-d output)."""
    op = "to_dense"
    dims = valid.checked_size(valid.shape(output_shape, op, "output_shape"), active_backend(), op)
    idx = _int64(op, sparse_indices, "sparse_indices")
    values = asarray(sparse_values)
    fill = _fill_value(op, default_value, values.dtype)
    sparse_to_dense_shape(idx.shape, values.shape, (), dims, op)
    host = host_values(idx)
    if host is not None and host.size:
        rows = host.reshape(-1, len(dims))
        bad = np.flatnonzero(((rows < 0) | (rows >= np.asarray(dims, np.int64))).any(axis=1))
        if bad.size:
            raise IndexOutOfRangeError(f"{op}: index {rows[bad[0]].tolist()} is out of range for an output "
                                       f"of shape {dims}.")
        if len(np.unique(rows, axis=0)) != len(rows):
            raise ShapeError(f"{op}: sparse_indices repeat an index; each element may be given once.")
    return _TO_DENSE((idx, values, fill), {"output_shape": dims})


def reshape(indices: Any, shape: Any, new_shape: Any) -> tuple[Tensor, Tensor]:
    """The (n, rank) indices of a sparse tensor of dense `shape` as indices of `new_shape` (one
    -1 in it is inferred), and that shape: TF's sparse reshape."""
    op = "reshape"
    idx = _int64(op, indices, "indices")
    dims, new = _int64(op, shape, "shape"), _int64(op, new_shape, "new_shape")
    sparse_shapes(idx.shape, dims.shape, op, "shape")
    if new.ndim != 1:
        raise ShapeError(f"{op}: new_shape must be 1-d, got shape {new.shape}.")
    out = _RESHAPE((idx, dims, new), {})
    return out[0], out[1]


def fill_empty_rows(indices: Any, values: Any, dense_shape: Any, default_value: Any) -> FillEmptyRowsResult:
    """The sparse tensor with one default_value (at column 0) in each empty row, its entries in
    row order; which rows were empty, and where each input entry went (TF's fill_empty_rows)."""
    op = "fill_empty_rows"
    idx = _int64(op, indices, "indices")
    vals = asarray(values)
    dims = _int64(op, dense_shape, "dense_shape")
    sparse_shapes(idx.shape, dims.shape, op)
    if vals.shape != (idx.shape[0],):
        raise ShapeError(f"{op}: values must have shape ({idx.shape[0]},), one per index; got {vals.shape}.")
    fill = _fill_value(op, default_value, vals.dtype)
    host, size = host_values(idx), host_values(dims)
    if host is not None and size is not None and host.size:
        bad = np.flatnonzero(((host < 0) | (host >= size)).any(axis=1))
        if bad.size:
            raise IndexOutOfRangeError(f"{op}: index {host[bad[0]].tolist()} is out of range for dense shape "
                                       f"{size.tolist()}.")
    if size is not None and size.size:  # (one output row per empty row: at most rows + entries)
        valid.checked_size((int(size[0]) + idx.shape[0], idx.shape[1]), vals._backend, op)
    out = _FILL_EMPTY_ROWS((idx, vals, dims, fill), {})
    return FillEmptyRowsResult(*out)
