"""ONNX lowerings of Bincount and DenseBincount: ``ScatterElements`` adding each row's weights
(or ones) at its values into zeros; values outside [0, size) are dropped (added as 0 at 0)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_bincount"]


@lowering("Bincount")
@lowering("DenseBincount")
def lower_bincount(ctx: LoweringContext) -> None:
    x, weights = ctx.inputs
    size = int(ctx.attrs["size"])
    dtype = ctx.np_dtype(0, output=True)
    shape = ctx.input_infos[0].shape
    flat = len(shape) == 1
    rows = (1, shape[0]) if flat else tuple(shape)
    if ctx.np_dtype(0) != np.int64:
        x = ctx.node("Cast", [x], to=elem_type(np.dtype(np.int64)))
    x = ctx.node("Reshape", [x, ctx.ints(list(rows))])
    low, high = ctx.node("GreaterOrEqual", [x, ctx.ints(0)]), ctx.node("Less", [x, ctx.ints(size)])
    valid = ctx.node("And", [low, high])
    if ctx.attrs.get("binary_output") or not int(np.prod(ctx.input_infos[1].shape)):
        w = ctx.node("Expand", [ctx.constant(1, dtype), ctx.ints(list(rows))])
    else:
        w = ctx.node("Reshape", [weights, ctx.ints(list(rows))])
    w = ctx.node("Where", [valid, w, ctx.constant(0, dtype)])
    safe = ctx.node("Where", [valid, x, ctx.ints(0)])
    zeros = ctx.constant(np.zeros((rows[0], size), dtype))
    counts = ctx.node("ScatterElements", [zeros, safe, w], axis=1, reduction="add")
    if ctx.attrs.get("binary_output"):
        seen = ctx.node("Greater", [counts, ctx.constant(0, dtype)])
        counts = ctx.node("Cast", [seen], to=elem_type(dtype))
    ctx.node("Reshape", [counts, ctx.ints(list(ctx.output_infos[0].shape))], ctx.out)
