"""Kernel specs of the sparse family (TF semantics, int64 indices as TF's SparseTensor):
SparseSegmentSum, SparseSegmentMean, SparseToDense, SparseReshape, SparseFillEmptyRows.

SparseSegment* (in data) and SparseToDense (in values and default_value) are differentiable, as
in TF (Python; TF.js has no gradient for any of them); SparseReshape (integers only) and
SparseFillEmptyRows (as in TF.js) are not. SparseSegment* with
``num_segments=None`` and SparseFillEmptyRows give outputs whose length depends on the input
values (a -1 in the spec's shape): they cannot run inside a compiled function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, bool_, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_int, as_shape, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["SPARSE_SEGMENT_SUM", "SPARSE_SEGMENT_MEAN", "SPARSE_TO_DENSE", "SPARSE_RESHAPE",
           "SPARSE_FILL_EMPTY_ROWS", "sparse_segment_shape", "sparse_to_dense_shape", "sparse_shapes"]


def _int_or_none(value: Any) -> int | None:
    return None if value is None else as_int(value)


def sparse_segment_shape(data: Sequence[int], indices: Sequence[int], ids: Sequence[int],
                         num_segments: int | None, op: str | None = None) -> tuple[int, ...]:
    """``(num_segments,) + data[1:]`` (-1 rows for num_segments None: the last id + 1);
    ShapeError naming `op` unless indices and segment_ids are 1-d of one length and data >= 1-d."""
    if len(data) < 1 or len(indices) != 1 or tuple(indices) != tuple(ids):
        raise ShapeError(f"{op_prefix(op)}data must be at least 1-d and indices and segment_ids 1-d of "
                         f"one length; got data {tuple(data)}, indices {tuple(indices)}, segment_ids "
                         f"{tuple(ids)}.")
    if num_segments is not None and num_segments < 0:
        raise ShapeError(f"{op_prefix(op)}num_segments must be >= 0 or None, got {num_segments}.")
    return (-1 if num_segments is None else num_segments,) + tuple(data[1:])


def _sparse_segment_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    data, idx, ids = infos
    return [TensorInfo(sparse_segment_shape(data.shape, idx.shape, ids.shape, attrs["num_segments"]),
                       data.dtype)]


def _sparse_segment_spec(name: str, doc: str) -> KernelSpec:
    return declare_spec(KernelSpec(
        name=name, inputs=("data", "indices", "segment_ids"), infer=_sparse_segment_rule,
        attrs=(AttrSpec("num_segments", None, _int_or_none,
                        "output rows; None: the last segment id + 1 (TF.js)"),),
        input_dtypes={"data": FLOAT_DTYPES, "indices": INT_DTYPES, "segment_ids": INT_DTYPES}, doc=doc,
    ))


SPARSE_SEGMENT_SUM = _sparse_segment_spec(
    "SparseSegmentSum",
    "out[s] = sum of data[indices[j]] over j with segment_ids[j] == s (sorted ids; 0 when empty)")
SPARSE_SEGMENT_MEAN = _sparse_segment_spec(
    "SparseSegmentMean",
    "out[s] = mean of data[indices[j]] over j with segment_ids[j] == s (sorted ids; 0 when empty)")


def sparse_to_dense_shape(indices: Sequence[int], values: Sequence[int], default: Sequence[int],
                          shape: Sequence[int], op: str | None = None) -> tuple[int, ...]:
    """`shape`, after checking the parts: indices 0-d, (n,) or (n, rank), values 0-d or (n,),
    a 0-d default; ShapeError naming `op` otherwise."""
    n = 1 if not indices else indices[0]
    rank = indices[1] if len(indices) == 2 else 1
    if len(indices) > 2 or rank != len(shape) or (not indices and len(shape) != 1):
        raise ShapeError(f"{op_prefix(op)}sparse_indices of shape {tuple(indices)} do not address an "
                         f"output of shape {tuple(shape)}: give (n, {len(shape)}) indices (or (n,) for a "
                         "1-d output).")
    if tuple(values) not in ((), (n,)) or tuple(default) != ():
        raise ShapeError(f"{op_prefix(op)}sparse_values must be 0-d or of shape ({n},) and default_value "
                         f"0-d; got {tuple(values)} and {tuple(default)}.")
    if any(d < 0 for d in shape):
        raise ShapeError(f"{op_prefix(op)}output_shape {tuple(shape)} has a negative size.")
    return tuple(shape)


def _sparse_to_dense_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    idx, values, default = infos
    shape = sparse_to_dense_shape(idx.shape, values.shape, default.shape, attrs["output_shape"])
    return [TensorInfo(shape, values.dtype)]


SPARSE_TO_DENSE = declare_spec(KernelSpec(
    name="SparseToDense", inputs=("sparse_indices", "sparse_values", "default_value"),
    infer=_sparse_to_dense_rule, attrs=(AttrSpec("output_shape", validate=as_shape),),
    input_dtypes={"sparse_indices": INT_DTYPES}, same_dtype=("sparse_values", "default_value"),
    doc="default_value everywhere, sparse_values at sparse_indices (indices distinct and in range)",
))


def sparse_shapes(indices: Sequence[int], shape: Sequence[int], op: str | None = None,
                  what: str = "dense_shape") -> tuple[int, int]:
    """(n, rank) of a SparseTensor's (n, rank) indices and (rank,) `what`; ShapeError naming `op`."""
    if len(indices) != 2 or tuple(shape) != (indices[1],):
        raise ShapeError(f"{op_prefix(op)}indices must be (n, rank) and {what} (rank,), got "
                         f"{tuple(indices)} and {tuple(shape)}.")
    return indices[0], indices[1]


def _sparse_reshape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    idx, shape, new_shape = infos
    n, _ = sparse_shapes(idx.shape, shape.shape, what="input_shape")
    if len(new_shape.shape) != 1:
        raise ShapeError(f"new_shape must be 1-d, got shape {new_shape.shape}.")
    rank = new_shape.shape[0]
    return [TensorInfo((n, rank), int64), TensorInfo((rank,), int64)]


SPARSE_RESHAPE = declare_spec(KernelSpec(
    name="SparseReshape", inputs=("input_indices", "input_shape", "new_shape"),
    infer=_sparse_reshape_rule, outputs=("output_indices", "output_shape"),
    input_dtypes={"input_indices": (int64,), "input_shape": (int64,), "new_shape": (int64,)},
    differentiable=False,
    doc="a SparseTensor's indices for a new dense shape (one -1 in new_shape is inferred)",
))


def _fill_empty_rows_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    idx, values, shape, default = infos
    n, rank = sparse_shapes(idx.shape, shape.shape)
    if tuple(values.shape) != (n,) or default.shape != ():
        raise ShapeError(f"values must have shape ({n},) and default_value be 0-d; got "
                         f"{values.shape} and {default.shape}.")
    return [TensorInfo((-1, rank), int64), TensorInfo((-1,), values.dtype), TensorInfo((-1,), bool_),
            TensorInfo((n,), int64)]


SPARSE_FILL_EMPTY_ROWS = declare_spec(KernelSpec(
    name="SparseFillEmptyRows", inputs=("indices", "values", "dense_shape", "default_value"),
    infer=_fill_empty_rows_rule,
    outputs=("output_indices", "output_values", "empty_row_indicator", "reverse_index_map"),
    input_dtypes={"indices": (int64,), "dense_shape": (int64,), "values": ALL_DTYPES},
    same_dtype=("values", "default_value"), differentiable=False,
    doc="rows in order, each empty row given one default_value at column 0; where inputs went",
))
