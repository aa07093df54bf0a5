"""ONNX lowering of SearchSorted: per value, how many of the sorted x1 are less than it
('left') or not greater ('right'): a comparison against every element, summed (NaN greater
than every number, as numpy sorts it)."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_search_sorted"]


@lowering("SearchSorted")
def lower_search_sorted(ctx: LoweringContext) -> None:
    sorted_, values = ctx.inputs
    if ctx.input_infos[0].dtype.kind == "bool":  # (ONNX compares numbers: bools as 0 and 1)
        sorted_, values = (ctx.node("Cast", [v], to=6) for v in (sorted_, values))
    op = "Less" if ctx.attrs.get("side", "left") == "left" else "LessOrEqual"
    rank = len(ctx.input_infos[1].shape)
    row = ctx.node("Reshape", [sorted_, ctx.ints([1] * rank + [-1])])
    column = ctx.node("Unsqueeze", [values, ctx.ints([-1])])
    hits = ctx.node(op, [row, column])
    if ctx.input_infos[0].dtype.kind == "float":  # (NaN sorts last, as numpy sorts it)
        nan_value = ctx.node("IsNaN", [column])
        if op == "Less":
            nan_value = ctx.node("And", [nan_value, ctx.node("Not", [ctx.node("IsNaN", [row])])])
        hits = ctx.node("Or", [hits, nan_value])
    counts = ctx.node("Cast", [hits], to=7)  # (int64)
    ctx.node("ReduceSum", [counts, ctx.ints([-1])], ctx.out, keepdims=0)
