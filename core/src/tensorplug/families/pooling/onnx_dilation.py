"""ONNX lowerings of the grayscale dilation and its gradients: Dilation2D is the maximum over the
window's taps of the (-inf padded) input plus the filter's value at the tap, one strided
``Slice`` per tap; the gradients send dy to each window's first maximal tap (``ArgMax`` over the
taps): into the input at that tap's positions (``ScatterND`` per tap, constant positions), or
summed into the filter's entry of that tap."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_dilation2d", "lower_dilation2d_backprop_input", "lower_dilation2d_backprop_filter"]


def _taps(ctx: LoweringContext, out: tuple[int, ...]) -> tuple[list[str], list[tuple[int, int]], str]:
    """Per tap (row-major over the filter): input + filter value, (N, out_h, out_w, C); the
    taps' offsets; and the padded input."""
    kh, kw = ctx.input_infos[1].shape[:2]
    strides = [int(s) for s in ctx.attrs["strides"]]
    dilations = [int(d) for d in ctx.attrs["dilations"]]
    pad = [(int(lo), int(hi)) for lo, hi in ctx.attrs["pad"]]
    pads = [0, pad[0][0], pad[1][0], 0, 0, pad[0][1], pad[1][1], 0]
    x = ctx.inputs[0]
    if any(pads):
        x = ctx.node("Pad", [x, ctx.ints(pads), ctx.constant(-np.inf, ctx.np_dtype(0))], mode="constant")
    taps, offsets = [], []
    for i in range(kh):
        for j in range(kw):
            starts = [i * dilations[0], j * dilations[1]]
            ends = [s + (n - 1) * st + 1 for s, n, st in zip(starts, out, strides)]
            bounds = [ctx.ints(starts), ctx.ints(ends), ctx.ints([1, 2]), ctx.ints(strides)]
            window = ctx.node("Slice", [x, *bounds])
            row = ctx.node("Gather", [ctx.inputs[1], ctx.ints(i)], axis=0)
            taps.append(ctx.node("Add", [window, ctx.node("Gather", [row, ctx.ints(j)], axis=0)]))
            offsets.append((starts[0], starts[1]))
    return taps, offsets, x


def _first_max(ctx: LoweringContext, taps: list[str]) -> str:
    stacked = ctx.node("Concat", [ctx.node("Unsqueeze", [t, ctx.ints([-1])]) for t in taps], axis=-1)
    return ctx.node("ArgMax", [stacked], axis=-1, keepdims=0, select_last_index=0)


@lowering("Dilation2D")
def lower_dilation2d(ctx: LoweringContext) -> None:
    taps, _, _ = _taps(ctx, ctx.output_infos[0].shape[1:3])
    ctx.node("Max", taps, ctx.out)


@lowering("Dilation2DBackpropInput")
def lower_dilation2d_backprop_input(ctx: LoweringContext) -> None:
    n, height, width, channels = ctx.input_infos[0].shape
    dy = ctx.inputs[2]
    out = ctx.input_infos[2].shape[1:3]
    taps, offsets, _ = _taps(ctx, out)
    arg = _first_max(ctx, taps)
    pad = [(int(lo), int(hi)) for lo, hi in ctx.attrs["pad"]]
    strides = [int(s) for s in ctx.attrs["strides"]]
    padded = (height + pad[0][0] + pad[0][1], width + pad[1][0] + pad[1][1])
    dtype = ctx.np_dtype(2)
    zero = ctx.constant(0, dtype)
    acc = ctx.constant(np.zeros((*padded, n, channels), dtype))  # (rows, cols first: ScatterND's)
    for t, (r0, c0) in enumerate(offsets):
        rows, cols = np.meshgrid(r0 + np.arange(out[0]) * strides[0], c0 + np.arange(out[1]) * strides[1],
                                 indexing="ij")
        at = ctx.constant(np.stack([rows, cols], axis=-1).astype(np.int64))
        sent = ctx.node("Where", [ctx.node("Equal", [arg, ctx.ints(t)]), dy, zero])
        moved = ctx.node("Transpose", [sent], perm=[1, 2, 0, 3])
        acc = ctx.node("ScatterND", [acc, at, moved], reduction="add")
    starts, ends = [pad[0][0], pad[1][0]], [pad[0][0] + height, pad[1][0] + width]
    cut = ctx.node("Slice", [acc, ctx.ints(starts), ctx.ints(ends), ctx.ints([0, 1])])
    ctx.node("Transpose", [cut], ctx.out, perm=[2, 0, 1, 3])


@lowering("Dilation2DBackpropFilter")
def lower_dilation2d_backprop_filter(ctx: LoweringContext) -> None:
    dy = ctx.inputs[2]
    taps, offsets, _ = _taps(ctx, ctx.input_infos[2].shape[1:3])
    arg = _first_max(ctx, taps)
    zero = ctx.constant(0, ctx.np_dtype(2))
    sums = [ctx.node("ReduceSum", [ctx.node("Where", [ctx.node("Equal", [arg, ctx.ints(t)]), dy, zero]),
                                   ctx.ints([0, 1, 2])], keepdims=0) for t in range(len(offsets))]
    stacked = ctx.node("Concat", [ctx.node("Unsqueeze", [s, ctx.ints([0])]) for s in sums], axis=0)
    ctx.node("Reshape", [stacked, ctx.ints(list(ctx.output_infos[0].shape))], ctx.out)
