"""ONNX lowerings of the reductions family: Sum, Max, Min, Prod and EuclideanNorm as ONNX's
``Reduce*`` (axes as an input: opset 18), ArgMax/ArgMin (a flattened input when the axis is
None), Cumsum."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import axes_or_all, lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_reduce", "lower_arg", "lower_cumsum"]

_REDUCE = {"Sum": "ReduceSum", "Max": "ReduceMax", "Min": "ReduceMin", "Prod": "ReduceProd",
           "EuclideanNorm": "ReduceL2"}


@lowering("Sum")
@lowering("Max")
@lowering("Min")
@lowering("Prod")
@lowering("EuclideanNorm")
def lower_reduce(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    axes = axes_or_all(ctx, rank)
    x = ctx.inputs[0]
    keepdims = int(bool(ctx.attrs.get("keepdims", False)))
    if ctx.input_infos[0].dtype != ctx.output_infos[0].dtype:  # (a sum of bools or small ints widens)
        x = ctx.node("Cast", [x], to=elem_type(ctx.np_dtype(0, output=True)))
    inputs = [x] if axes is None else [x, ctx.ints(axes)]
    if axes == []:
        ctx.node("Identity", [x], ctx.out)
        return
    ctx.node(_REDUCE[ctx.kernel], inputs, ctx.out, keepdims=keepdims)


@lowering("ArgMax")
@lowering("ArgMin")
def lower_arg(ctx: LoweringContext) -> None:
    op = "ArgMax" if ctx.kernel == "ArgMax" else "ArgMin"
    axis = ctx.attrs.get("axis")
    keepdims = int(bool(ctx.attrs.get("keepdims", False)))
    x = ctx.inputs[0]
    rank = len(ctx.input_infos[0].shape)
    if axis is None:
        flat = ctx.node("Reshape", [x, ctx.ints([-1])])
        if keepdims:
            y = ctx.node(op, [flat], axis=0, keepdims=0)
            ctx.node("Reshape", [y, ctx.ints([1] * rank)], ctx.out)
        else:
            ctx.node(op, [flat], ctx.out, axis=0, keepdims=0)
        return
    ctx.node(op, [x], ctx.out, axis=int(axis) % rank, keepdims=keepdims)


@lowering("Cumsum")
def lower_cumsum(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    ctx.node("CumSum", [ctx.inputs[0], ctx.ints(int(ctx.attrs.get("axis", 0)) % rank)], ctx.out,
             exclusive=int(bool(ctx.attrs.get("exclusive"))), reverse=int(bool(ctx.attrs.get("reverse"))))
