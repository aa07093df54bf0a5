"""ONNX lowerings of the sparse family: SparseToDense (``ScatterND`` into the default value) and
SparseSegmentSum/Mean with a given number of segments (rows gathered, added per segment; ids
outside [0, num_segments) dropped; a mean divides by the count, at least 1)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_sparse_to_dense", "lower_sparse_segment"]

_INT64 = elem_type(np.dtype(np.int64))


@lowering("SparseToDense")
def lower_sparse_to_dense(ctx: LoweringContext) -> None:
    indices, values, default = ctx.inputs
    shape = [int(n) for n in ctx.attrs["output_shape"]]
    rank = len(shape)
    if not rank:
        ctx.node("Identity", [ctx.node("Reshape", [values, ctx.ints([])])], ctx.out)
        return
    rows = int(np.prod(ctx.input_infos[0].shape, dtype=np.int64)) // rank
    indices = ctx.node("Reshape", [ctx.node("Cast", [indices], to=_INT64), ctx.ints([rows, rank])])
    values = ctx.node("Expand", [values, ctx.ints([rows])])
    start = ctx.node("Expand", [default, ctx.ints(shape)])
    ctx.node("ScatterND", [start, indices, values], ctx.out)


@lowering("SparseSegmentSum")
@lowering("SparseSegmentMean")
def lower_sparse_segment(ctx: LoweringContext) -> None:
    data, indices, ids = ctx.inputs
    if ctx.attrs.get("num_segments") is None:
        raise ctx.unsupported("without num_segments the number of segments is the last id's value + 1")
    n = int(ctx.attrs["num_segments"])
    dtype = ctx.np_dtype(0)
    rank = len(ctx.input_infos[0].shape)
    ids = ctx.node("Cast", [ids], to=_INT64)
    low, high = ctx.node("GreaterOrEqual", [ids, ctx.ints(0)]), ctx.node("Less", [ids, ctx.ints(n)])
    keep = ctx.node("And", [low, high])
    rows = ctx.node("Gather", [data, ctx.node("Cast", [indices], to=_INT64)], axis=0)
    row_keep = ctx.node("Reshape", [keep, ctx.ints([-1] + [1] * (rank - 1))])
    rows = ctx.node("Where", [row_keep, rows, ctx.constant(0, dtype)])
    safe = ctx.node("Unsqueeze", [ctx.node("Where", [keep, ids, ctx.ints(0)]), ctx.ints([-1])])
    zeros = ctx.constant(np.zeros(ctx.output_infos[0].shape, dtype))
    total = ctx.node("ScatterND", [zeros, safe, rows], None if ctx.kernel == "SparseSegmentMean" else ctx.out,
                     reduction="add")
    if ctx.kernel == "SparseSegmentMean":
        ones = ctx.node("Cast", [keep], to=elem_type(dtype))
        counts = ctx.node("ScatterND", [ctx.constant(np.zeros(n, dtype)), safe, ones], reduction="add")
        counts = ctx.node("Max", [counts, ctx.constant(1, dtype)])
        ctx.node("Div", [total, ctx.node("Reshape", [counts, ctx.ints([n] + [1] * (rank - 1))])], ctx.out)
