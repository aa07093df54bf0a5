"""ONNX lowerings of the segments family: UnsortedSegmentSum, Max and Min as ``ScatterND`` with
a reduction into the reduction's identity (an empty segment keeps it, as the kernel gives);
ids outside [0, num_segments) are dropped (their rows made the identity, sent to segment 0)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_segments"]

_REDUCTION = {"UnsortedSegmentSum": "add", "UnsortedSegmentMax": "max", "UnsortedSegmentMin": "min"}


def _identity(kernel: str, dtype: np.dtype) -> object:
    if kernel == "UnsortedSegmentSum":
        return 0
    largest = kernel == "UnsortedSegmentMin"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    return np.inf if largest else -np.inf


@lowering("UnsortedSegmentSum")
@lowering("UnsortedSegmentMax")
@lowering("UnsortedSegmentMin")
def lower_segments(ctx: LoweringContext) -> None:
    data, ids = ctx.inputs
    dtype = ctx.np_dtype(0)
    n = int(ctx.attrs["num_segments"])
    id_rank = len(ctx.input_infos[1].shape)
    data_rank = len(ctx.input_infos[0].shape)
    if ctx.np_dtype(1) != np.int64:
        ids = ctx.node("Cast", [ids], to=elem_type(np.dtype(np.int64)))
    below, above = ctx.node("Less", [ids, ctx.ints(0)]), ctx.node("GreaterOrEqual", [ids, ctx.ints(n)])
    bad = ctx.node("Or", [below, above])
    identity = ctx.constant(_identity(ctx.kernel, dtype), dtype)
    row_bad = bad if data_rank == id_rank else ctx.node(
        "Reshape", [bad, ctx.ints(list(ctx.input_infos[1].shape) + [1] * (data_rank - id_rank))])
    rows = ctx.node("Where", [row_bad, identity, data])
    safe = ctx.node("Where", [bad, ctx.ints(0), ids])
    start = ctx.node("Expand", [identity, ctx.ints(list(ctx.output_infos[0].shape))])
    ctx.node("ScatterND", [start, ctx.node("Unsqueeze", [safe, ctx.ints([-1])]), rows], ctx.out,
             reduction=_REDUCTION[ctx.kernel])
