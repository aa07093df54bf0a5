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
    x = _widened(ctx, x)
    inputs = [x] if axes is None else [x, ctx.ints(axes)]
    if rank == 0 or axes == []:
        ctx.node("Abs" if ctx.kernel == "EuclideanNorm" else "Identity", [x], ctx.out)
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
    if rank == 0:
        ctx.node("Identity", [ctx.ints(0)], ctx.out)
        return
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
    x = _widened(ctx, ctx.inputs[0])
    if rank == 0:  # (one element: itself, or 0 when exclusive)
        if ctx.attrs.get("exclusive"):
            x = ctx.node("Sub", [x, x])
        ctx.node("Identity", [x], ctx.out)
        return
    ctx.node("CumSum", [x, ctx.ints(int(ctx.attrs.get("axis", 0)) % rank)], ctx.out,
             exclusive=int(bool(ctx.attrs.get("exclusive"))), reverse=int(bool(ctx.attrs.get("reverse"))))


def _widened(ctx: LoweringContext, x: str) -> str:
    """`x` cast to the output's dtype where the kernel widens (a sum of bools or small ints)."""
    if ctx.input_infos[0].dtype is ctx.output_infos[0].dtype:
        return x
    return ctx.node("Cast", [x], to=elem_type(ctx.np_dtype(0, output=True)))


#: Cumprod is written as one product per position (ONNX has CumSum only): up to this many
_MAX_CUMPROD = 1024


@lowering("Cumprod")
def lower_cumprod(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    x = _widened(ctx, ctx.inputs[0])
    if not shape:
        ctx.node("Sub" if ctx.attrs.get("exclusive") else "Identity",  # (0-d: itself, or 1 when exclusive)
                 [ctx.constant(1, ctx.np_dtype(0, output=True)), ctx.node("Sub", [x, x])] if
                 ctx.attrs.get("exclusive") else [x], ctx.out)
        return
    axis = int(ctx.attrs.get("axis", 0)) % len(shape)
    n = shape[axis]
    if n > _MAX_CUMPROD:
        raise ctx.unsupported(f"an axis of {n} elements (written as one product per position: at most "
                              f"{_MAX_CUMPROD})")
    reverse, exclusive = bool(ctx.attrs.get("reverse")), bool(ctx.attrs.get("exclusive"))
    one = ctx.constant(1, ctx.np_dtype(0, output=True))
    parts = []
    for k in range(n):
        lo, hi = (k + 1, n) if reverse else (0, k)
        if not exclusive:
            lo, hi = (k, n) if reverse else (0, k + 1)
        if lo >= hi:
            part = ctx.node("Expand", [one, ctx.ints([*shape[:axis], 1, *shape[axis + 1:]])])
        else:
            window = ctx.node("Slice", [x, ctx.ints([lo]), ctx.ints([hi]), ctx.ints([axis])])
            part = ctx.node("ReduceProd", [window, ctx.ints([axis])], keepdims=1)
        parts.append(part)
    ctx.node("Concat", parts, ctx.out, axis=axis)
