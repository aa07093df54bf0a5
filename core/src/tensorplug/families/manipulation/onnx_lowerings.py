"""ONNX lowerings of the manipulation family: Reshape, Transpose, Concat, Stack, Pad,
BroadcastTo (``Expand``), Roll (``Slice`` and ``Concat``). A reshape keeps each leading size it
shares with its input as ONNX's 0 ("as the input"), so a dynamic batch axis stays dynamic."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.manipulation.spec import rolled

__all__ = ["lower_reshape", "lower_transpose", "lower_concat", "lower_stack", "lower_pad",
           "lower_broadcast_to", "lower_roll"]


@lowering("Reshape")
def lower_reshape(ctx: LoweringContext) -> None:
    shape = list(ctx.output_infos[0].shape)
    old = ctx.input_infos[0].shape
    if shape and old and shape[0] == old[0] and shape[0] != 0:
        shape[0] = 0  # (ONNX: the input's size: a dynamic batch axis stays so)
    ctx.node("Reshape", [ctx.inputs[0], ctx.ints(shape)], ctx.out)


@lowering("Transpose")
def lower_transpose(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    perm = [int(p) % rank for p in ctx.attrs["perm"]]
    ctx.node("Transpose" if perm else "Identity", ctx.inputs, ctx.out, **({"perm": perm} if perm else {}))


@lowering("Concat")
def lower_concat(ctx: LoweringContext) -> None:
    rank = len(ctx.output_infos[0].shape)
    ctx.node("Concat", ctx.inputs, ctx.out, axis=int(ctx.attrs.get("axis", 0)) % max(rank, 1))


@lowering("Stack")
def lower_stack(ctx: LoweringContext) -> None:
    rank = len(ctx.output_infos[0].shape)
    axis = int(ctx.attrs.get("axis", 0)) % rank
    axes = ctx.ints([axis])
    parts = [ctx.node("Unsqueeze", [x, axes]) for x in ctx.inputs]
    ctx.node("Concat", parts, ctx.out, axis=axis)


@lowering("Pad")
def lower_pad(ctx: LoweringContext) -> None:
    pairs = ctx.attrs["pad_width"]
    pads = [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]
    if not any(pads):
        ctx.node("Identity", [ctx.inputs[0]], ctx.out)
        return
    value = ctx.constant(ctx.attrs.get("constant_value", 0.0), ctx.np_dtype(0))
    ctx.node("Pad", [ctx.inputs[0], ctx.ints(pads), value], ctx.out, mode="constant")


@lowering("BroadcastTo")
def lower_broadcast_to(ctx: LoweringContext) -> None:
    ctx.node("Expand", [ctx.inputs[0], ctx.ints(list(ctx.output_infos[0].shape))], ctx.out)


@lowering("Roll")
def lower_roll(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    shifts, axes = rolled(shape, ctx.attrs["shift"], ctx.attrs["axis"])
    x = ctx.inputs[0]
    for k, axis in zip(shifts, axes):
        n = shape[axis]
        tail = ctx.node("Slice", [x, ctx.ints([n - k]), ctx.ints([n]), ctx.ints([axis])])
        head = ctx.node("Slice", [x, ctx.ints([0]), ctx.ints([n - k]), ctx.ints([axis])])
        x = ctx.node("Concat", [tail, head], axis=axis % len(shape))
    ctx.node("Identity", [x], ctx.out)

