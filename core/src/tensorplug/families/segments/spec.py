"""Kernel specs of the segment family: UnsortedSegmentSum, UnsortedSegmentMax and
UnsortedSegmentMin (jax.ops.segment_* / TF's unsorted_segment_*), Bincount and DenseBincount.

``segment_ids`` has a prefix of data's shape (TF); row ``i`` of data (over those axes) goes to
segment ``segment_ids[i]``. Ids outside ``[0, num_segments)`` are dropped (TF drops negative
ids, jax every id out of range); the ops refuse them when they can see the values. An empty
segment gets the reduction's identity: 0, -inf (the smallest integer) for max, inf (the largest
integer) for min, as jax.ops gives. The bincounts drop values outside ``[0, size)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import ALL_NUMERIC_DTYPES, INT_DTYPES, NUMERIC_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["UNSORTED_SEGMENT_SUM", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_MIN", "BINCOUNT",
           "DENSE_BINCOUNT", "segment_shape", "bincount_shape"]


def _count(value: Any, what: str, op: str | None) -> int:
    if value < 0:
        raise ShapeError(f"{op_prefix(op)}{what} must be >= 0, got {value}.")
    return int(value)


def segment_shape(data: Sequence[int], ids: Sequence[int], num_segments: int,
                  op: str | None = None) -> tuple[int, ...]:
    """``(num_segments,) + data[ids.ndim:]``: the shape of a segment reduction; ShapeError naming
    `op` unless the ids' shape is a prefix of data's and num_segments >= 0."""
    if tuple(data[:len(ids)]) != tuple(ids) or not ids:
        raise ShapeError(f"{op_prefix(op)}segment_ids of shape {tuple(ids)} must have a shape that "
                         f"begins data's {tuple(data)} (at least 1-d): one id per row of data.")
    return (_count(num_segments, "num_segments", op),) + tuple(data[len(ids):])


def _segment_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    data, ids = infos
    return [TensorInfo(segment_shape(data.shape, ids.shape, attrs["num_segments"]), data.dtype)]


_NUM_SEGMENTS = AttrSpec("num_segments", validate=as_int, doc="the number of segments (output rows)")


def _segment_spec(name: str, dtypes: tuple[Any, ...], doc: str) -> KernelSpec:
    return declare_spec(KernelSpec(
        name=name, inputs=("data", "segment_ids"), infer=_segment_rule, attrs=(_NUM_SEGMENTS,),
        input_dtypes={"data": dtypes, "segment_ids": INT_DTYPES}, doc=doc,
    ))


UNSORTED_SEGMENT_SUM = _segment_spec(
    "UnsortedSegmentSum", ALL_NUMERIC_DTYPES,
    "out[s] = sum of the rows of data whose id is s (0 for an empty segment); ids out of range dropped")
UNSORTED_SEGMENT_MAX = _segment_spec(
    "UnsortedSegmentMax", NUMERIC_DTYPES,
    "out[s] = max of the rows of data whose id is s (-inf or the dtype's minimum when empty)")
UNSORTED_SEGMENT_MIN = _segment_spec(
    "UnsortedSegmentMin", NUMERIC_DTYPES,
    "out[s] = min of the rows of data whose id is s (inf or the dtype's maximum when empty)")


def bincount_shape(x: Sequence[int], weights: Sequence[int], size: int, op: str | None = None,
                   dense: bool = False) -> tuple[int, ...]:
    """The counts' shape: ``(size,)``, or ``(rows, size)`` for a 2-d x of DenseBincount;
    ShapeError naming `op` unless weights have x's shape or are empty (no weights)."""
    size = _count(size, "size", op)
    if len(x) not in ((1, 2) if dense else (1,)):
        raise ShapeError(f"{op_prefix(op)}x must be 1-d{' or 2-d' if dense else ''}, got shape "
                         f"{tuple(x)}; flatten it with reshape(x, (-1,)).")
    if tuple(weights) not in (tuple(x), (0,)):
        raise ShapeError(f"{op_prefix(op)}weights of shape {tuple(weights)} must have x's shape "
                         f"{tuple(x)} (or be empty: count each value once).")
    return (x[0], size) if len(x) == 2 else (size,)


def _bincount_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, w = infos
    return [TensorInfo(bincount_shape(x.shape, w.shape, attrs["size"]), w.dtype)]


def _dense_bincount_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, w = infos
    return [TensorInfo(bincount_shape(x.shape, w.shape, attrs["size"], dense=True), w.dtype)]


_SIZE = AttrSpec("size", validate=as_int, doc="the number of bins")
_COUNT_DTYPES = {"x": INT_DTYPES, "weights": NUMERIC_DTYPES}

BINCOUNT = declare_spec(KernelSpec(
    name="Bincount", inputs=("x", "weights"), infer=_bincount_rule, attrs=(_SIZE,),
    input_dtypes=_COUNT_DTYPES, differentiable=False,  # (TF.js has no gradient)
    doc="out[v] = sum of weights (1 each if weights is empty) where x == v, for v in [0, size)",
))

DENSE_BINCOUNT = declare_spec(KernelSpec(
    name="DenseBincount", inputs=("x", "weights"), infer=_dense_bincount_rule,
    attrs=(_SIZE, AttrSpec("binary_output", False, as_bool, "1 where a value occurs, not its count")),
    input_dtypes=_COUNT_DTYPES, differentiable=False,  # (TF.js has no gradient)
    doc="Bincount of a 1-d x, or of each row of a 2-d x; binary_output gives 1 for any count",
))
