"""ONNX lowerings of the pooling family: MaxPool and AvgPool (2-d and 3-d) as ONNX ``MaxPool``
and ``AveragePool`` (channels-first; padding not counted in averages, as TF counts), with a
``Transpose`` on each side for channels-last data."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, onnx_pads, to_channels_first, to_channels_last

__all__ = ["lower_pool"]

_OPS = {"MaxPool": "MaxPool", "MaxPool3D": "MaxPool", "AvgPool": "AveragePool", "AvgPool3D": "AveragePool"}


@lowering("MaxPool")
@lowering("MaxPool3D")
@lowering("AvgPool")
@lowering("AvgPool3D")
def lower_pool(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    channels_last = ctx.attrs.get("data_format", "channels_last") == "channels_last"
    x = to_channels_first(ctx, ctx.inputs[0], rank) if channels_last else ctx.inputs[0]
    extra = {"count_include_pad": 0} if _OPS[ctx.kernel] == "AveragePool" else {}
    y = ctx.node(_OPS[ctx.kernel], [x], None if channels_last else ctx.out,
                 kernel_shape=[int(k) for k in ctx.attrs["filter_size"]],
                 strides=[int(s) for s in ctx.attrs["strides"]], pads=onnx_pads(ctx.attrs["pad"]), **extra)
    if channels_last:
        to_channels_last(ctx, y, rank, ctx.out)


@lowering("Dilation2D")
def lower_dilation2d(ctx: LoweringContext) -> None:
    """The grayscale dilation: the maximum over the window's taps of the (-inf padded) input
    plus the filter's value at that tap, one strided ``Slice`` per tap."""
    kh, kw = ctx.input_infos[1].shape[:2]
    strides = [int(s) for s in ctx.attrs["strides"]]
    dilations = [int(d) for d in ctx.attrs["dilations"]]
    pad = [(int(lo), int(hi)) for lo, hi in ctx.attrs["pad"]]
    out = ctx.output_infos[0].shape[1:3]
    pads = [0, pad[0][0], pad[1][0], 0, 0, pad[0][1], pad[1][1], 0]
    x = ctx.inputs[0]
    if any(pads):
        x = ctx.node("Pad", [x, ctx.ints(pads), ctx.constant(-np.inf, ctx.np_dtype(0))], mode="constant")
    taps = []
    for i in range(kh):
        for j in range(kw):
            starts = [i * dilations[0], j * dilations[1]]
            ends = [s + (n - 1) * st + 1 for s, n, st in zip(starts, out, strides)]
            bounds = [ctx.ints(starts), ctx.ints(ends), ctx.ints([1, 2]), ctx.ints(strides)]
            window = ctx.node("Slice", [x, *bounds])
            row = ctx.node("Gather", [ctx.inputs[1], ctx.ints(i)], axis=0)
            value = ctx.node("Gather", [row, ctx.ints(j)], axis=0)
            taps.append(ctx.node("Add", [window, value]))
    ctx.node("Max", taps, ctx.out)
