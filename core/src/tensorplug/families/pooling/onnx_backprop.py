"""ONNX lowerings of the pooling family's gradients and MaxPoolWithArgmax (channels-first, with
a ``Transpose`` on each side for channels-last data): AvgPoolGrad as a depthwise
``ConvTranspose`` of ones spreading dy / (the window's unpadded count); MaxPoolGrad as dy added
at each window's maximum, found by ``MaxPool``'s indices; MaxPoolWithArgmax's indices recomputed
from ONNX's channels-first ones into the kernel's channels-last flattening."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, onnx_pads, to_channels_first, to_channels_last
from tensorplug.kernel_helpers import avg_pool_divisor, pool_window

__all__ = ["lower_avg_pool_grad", "lower_max_pool_grad", "lower_max_pool_with_argmax"]


def _geometry(ctx: LoweringContext, shape: tuple[int, ...]) -> tuple[list[int], list[int], list[int]]:
    return ([int(k) for k in ctx.attrs["filter_size"]], [int(s) for s in ctx.attrs["strides"]],
            onnx_pads(ctx.attrs["pad"]))


def _first(ctx: LoweringContext, x: str, rank: int) -> str:
    last = ctx.attrs.get("data_format", "channels_last") == "channels_last"
    return to_channels_first(ctx, x, rank) if last else x


def _back(ctx: LoweringContext, y: str, rank: int) -> None:
    if ctx.attrs.get("data_format", "channels_last") == "channels_last":
        to_channels_last(ctx, y, rank, ctx.out)
    else:
        ctx.node("Identity", [y], ctx.out)


@lowering("AvgPoolGrad")
@lowering("AvgPool3DGrad")
def lower_avg_pool_grad(ctx: LoweringContext) -> None:
    dy = ctx.inputs[0]
    shape = ctx.input_infos[1].shape
    rank = len(shape)
    fmt = ctx.attrs.get("data_format", "channels_last")
    window, strides, pad = pool_window(rank, fmt, ctx.attrs["filter_size"], ctx.attrs["strides"],
                                       ctx.attrs["pad"])
    dtype = ctx.np_dtype(0)
    share = ctx.node("Div", [dy, ctx.constant(avg_pool_divisor(shape, window, strides, pad).astype(dtype))])
    kernel, steps, pads = _geometry(ctx, shape)
    x = _first(ctx, share, rank)
    channels = shape[-1] if fmt == "channels_last" else shape[1]
    sizes = list(shape[1:-1] if fmt == "channels_last" else shape[2:])
    dy_shape = ctx.input_infos[0].shape
    dy_sizes = list(dy_shape[1:-1] if fmt == "channels_last" else dy_shape[2:])
    half = len(pads) // 2
    extra = [n - (s * (m - 1) + k - lo - hi)
             for n, m, k, s, lo, hi in zip(sizes, dy_sizes, kernel, steps, pads[:half], pads[half:])]
    ones = ctx.constant(np.ones((channels, 1, *kernel), dtype))
    y = ctx.node("ConvTranspose", [x, ones], strides=steps, pads=pads, output_padding=extra, group=channels,
                 kernel_shape=kernel)
    _back(ctx, y, rank)


@lowering("MaxPoolGrad")
@lowering("MaxPool3DGrad")
def lower_max_pool_grad(ctx: LoweringContext) -> None:
    dy, x = ctx.inputs[0], ctx.inputs[1]
    shape = ctx.input_infos[1].shape
    rank = len(shape)
    kernel, steps, pads = _geometry(ctx, shape)
    xf, dyf = _first(ctx, x, rank), _first(ctx, dy, rank)
    at = ctx.fresh("indices")
    ctx.node("MaxPool", [xf], [ctx.fresh("values"), at], kernel_shape=kernel,
             strides=steps, pads=pads)
    size = int(np.prod(shape))
    zeros = ctx.constant(np.zeros(size, ctx.np_dtype(0)))
    flat = ctx.node("ScatterElements", [zeros, ctx.node("Reshape", [at, ctx.ints([-1])]),
                                        ctx.node("Reshape", [dyf, ctx.ints([-1])])], axis=0, reduction="add")
    first_shape = [shape[0], shape[-1], *shape[1:-1]] if ctx.attrs.get("data_format", "channels_last") == \
        "channels_last" else list(shape)
    _back(ctx, ctx.node("Reshape", [flat, ctx.ints(first_shape)]), rank)


@lowering("MaxPoolWithArgmax")
def lower_max_pool_with_argmax(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape  # (channels-last, 4-d)
    n, h, w, c = shape
    kernel, steps, pads = _geometry(ctx, shape)
    at = ctx.fresh("indices")
    values = ctx.node("MaxPool", [to_channels_first(ctx, ctx.inputs[0], 4)],
                      [ctx.fresh("values"), at], kernel_shape=kernel, strides=steps,
                      pads=pads)
    to_channels_last(ctx, values, 4, ctx.outputs[0])
    # ONNX's index: ((b * C + ch) * H + row) * W + col; the kernel's: ((b * H + row) * W + col) * C + ch
    at = to_channels_last(ctx, at, 4)
    pixel = ctx.node("Mod", [at, ctx.ints(h * w)])
    plane = ctx.node("Div", [at, ctx.ints(h * w)])  # b * C + ch
    channel = ctx.node("Mod", [plane, ctx.ints(c)])
    index = ctx.node("Add", [ctx.node("Mul", [pixel, ctx.ints(c)]), channel])
    if ctx.attrs.get("include_batch_in_index"):
        batch = ctx.node("Div", [plane, ctx.ints(c)])
        index = ctx.node("Add", [index, ctx.node("Mul", [batch, ctx.ints(h * w * c)])])
    ctx.node("Identity", [index], ctx.outputs[1])
