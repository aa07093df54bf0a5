"""ONNX lowerings of the structure family: Reverse (``Slice`` with step -1), Tile, SplitV and
Unpack (``Split``), TopK, Diag and MatrixBandPart (``Where`` with a constant mask)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_reverse", "reverse"]

_FIRST = np.iinfo(np.int64).min  # (an ONNX slice end before index 0, going backwards)


def reverse(ctx: LoweringContext, x: str, axes: list[int], out: str | None = None) -> str:
    """`x` reversed along `axes` (non-negative)."""
    if not axes:
        return ctx.node("Identity", [x], out)
    n = len(axes)
    bounds = [ctx.ints([-1] * n), ctx.ints([_FIRST] * n), ctx.ints(axes), ctx.ints([-1] * n)]
    return ctx.node("Slice", [x, *bounds], out)


@lowering("Reverse")
def lower_reverse(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    axes = sorted({int(a) % rank for a in ctx.attrs["axes"]}) if rank else []
    reverse(ctx, ctx.inputs[0], axes, ctx.out)


@lowering("Tile")
def lower_tile(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    reps = [int(r) for r in ctx.attrs["reps"]]
    if not shape:
        ctx.node("Identity", ctx.inputs, ctx.out)
        return
    rank = max(len(shape), len(reps))
    x = ctx.inputs[0]
    if rank > len(shape):  # (numpy prepends axes of size 1)
        x = ctx.node("Reshape", [x, ctx.ints([1] * (rank - len(shape)) + list(shape))])
    reps = [1] * (rank - len(reps)) + reps
    ctx.node("Tile", [x, ctx.ints(reps)], ctx.out)


@lowering("SplitV")
def lower_split_v(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    axis = int(ctx.attrs.get("axis", 0)) % rank
    sizes = [info.shape[axis] for info in ctx.output_infos]
    ctx.node("Split", [ctx.inputs[0], ctx.ints(sizes)], ctx.outputs, axis=axis)


@lowering("Unpack")
def lower_unpack(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    axis = int(ctx.attrs.get("axis", 0)) % rank
    n = ctx.input_infos[0].shape[axis]
    if n == 1:
        ctx.node("Squeeze", [ctx.inputs[0], ctx.ints([axis])], ctx.outputs[0])
        return
    parts = [ctx.fresh("part") for _ in range(n)]
    ctx.node("Split", [ctx.inputs[0], ctx.ints([1] * n)], parts, axis=axis)
    for part, out in zip(parts, ctx.outputs):
        ctx.node("Squeeze", [part, ctx.ints([axis])], out)


@lowering("TopK")
def lower_top_k(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    ctx.node("TopK", [ctx.inputs[0], ctx.ints([int(ctx.attrs["k"])])], ctx.outputs, axis=rank - 1, largest=1,
             sorted=1)


@lowering("Diag")
def lower_diag(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    n = int(np.prod(shape, dtype=np.int64))
    flat = ctx.node("Reshape", [ctx.inputs[0], ctx.ints([1, n])])
    zero = ctx.constant(0, ctx.np_dtype(0))
    square = ctx.node("Where", [ctx.constant(np.eye(n, dtype=bool)), flat, zero])
    ctx.node("Reshape", [square, ctx.ints(list(shape) + list(shape))], ctx.out)


@lowering("MatrixBandPart")
def lower_band_part(ctx: LoweringContext) -> None:
    rows, cols = ctx.input_infos[0].shape[-2:]
    lower, upper = int(ctx.attrs["num_lower"]), int(ctx.attrs["num_upper"])
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    ctx.node("Where", [ctx.constant(keep), ctx.inputs[0], ctx.constant(0, ctx.np_dtype(0))], ctx.out)


@lowering("BroadcastArgs")
def lower_broadcast_args(ctx: LoweringContext) -> None:
    """The broadcast of two shapes (as values): each padded with leading ones, then per axis
    the other's size where one is 1."""
    n = ctx.output_infos[0].shape[0]
    dtype = ctx.np_dtype(0)
    padded = []
    for name, info in zip(ctx.inputs, ctx.input_infos):
        missing = n - info.shape[0]
        ones = ctx.constant(np.ones(missing, dtype))
        padded.append(ctx.node("Concat", [ones, name], axis=0) if missing else name)
    a, b = padded
    ctx.node("Where", [ctx.node("Equal", [a, ctx.constant(1, dtype)]), b, a], ctx.out)
