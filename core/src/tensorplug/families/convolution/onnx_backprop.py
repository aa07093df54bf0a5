"""ONNX lowerings of the convolution's gradient kernels: the input's gradient as ONNX's
``ConvTranspose`` (the filter's layout is Conv's; ``output_padding`` gives back the input's
size), the filter's gradient (one group) as a convolution of the input with dy, batch and
channels swapped (strides become dilations and dilations strides), cut to the filter's size."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, per_dim, to_channels_first, to_channels_last

__all__ = ["lower_input_gradient", "lower_filter_gradient"]


def _channels_last(ctx: LoweringContext) -> bool:
    return str(ctx.attrs.get("data_format", "NHWC"))[-1] == "C"


@lowering("Conv2DBackpropInput")
@lowering("Conv3DBackpropInputV2")
def lower_input_gradient(ctx: LoweringContext) -> None:
    dy, filter_ = ctx.inputs
    fshape = ctx.input_infos[1].shape
    spatial = len(fshape) - 2
    rank = spatial + 2
    last = _channels_last(ctx)
    shape = list(ctx.attrs["input_shape"])
    sizes = shape[1:-1] if last else shape[2:]
    dy_sizes = ctx.input_infos[0].shape[1:-1] if last else ctx.input_infos[0].shape[2:]
    strides = per_dim(ctx.attrs.get("strides", 1), spatial)
    dilations = per_dim(ctx.attrs.get("dilations", 1), spatial)
    pads = [(int(lo), int(hi)) for lo, hi in ctx.attrs.get("padding", ((0, 0),) * spatial)]
    geometry = zip(sizes, dy_sizes, fshape[:spatial], strides, dilations, pads)
    extra = [n - (s * (m - 1) + (k - 1) * d + 1 - lo - hi) for n, m, k, s, d, (lo, hi) in geometry]
    if any(e < 0 for e in extra):
        raise ctx.unsupported("the input's size is smaller than the transposed convolution gives")
    x = to_channels_first(ctx, dy, rank) if last else dy
    weight = ctx.node("Transpose", [filter_], perm=[spatial + 1, spatial, *range(spatial)])
    y = ctx.node("ConvTranspose", [x, weight], None if last else ctx.out, strides=strides,
                 dilations=dilations, pads=[lo for lo, _ in pads] + [hi for _, hi in pads],
                 output_padding=extra, group=int(ctx.attrs.get("groups", 1)),
                 kernel_shape=list(fshape[:spatial]))
    if last:
        to_channels_last(ctx, y, rank, ctx.out)


@lowering("Conv2DBackpropFilter")
@lowering("Conv3DBackpropFilterV2")
def lower_filter_gradient(ctx: LoweringContext) -> None:
    if int(ctx.attrs.get("groups", 1)) != 1:
        raise ctx.unsupported("the filter's gradient of a grouped convolution")
    x, dy = ctx.inputs
    fshape = [int(n) for n in ctx.attrs["filter_shape"]]
    spatial = len(fshape) - 2
    rank = spatial + 2
    last = _channels_last(ctx)
    strides = per_dim(ctx.attrs.get("strides", 1), spatial)
    dilations = per_dim(ctx.attrs.get("dilations", 1), spatial)
    pads = [(int(lo), int(hi)) for lo, hi in ctx.attrs.get("padding", ((0, 0),) * spatial)]
    # x as (in channels, batch, spatial...), dy as (out channels, batch, spatial...)
    swap = [rank - 1, 0, *range(1, rank - 1)] if last else [1, 0, *range(2, rank)]
    xs = ctx.node("Transpose", [x], perm=swap)
    dys = ctx.node("Transpose", [dy], perm=swap)
    dy_sizes = ctx.input_infos[1].shape[1:-1] if last else ctx.input_infos[1].shape[2:]
    full = ctx.node("Conv", [xs, dys], strides=dilations, dilations=strides,
                    pads=[lo for lo, _ in pads] + [hi for _, hi in pads], kernel_shape=list(dy_sizes))
    cut = ctx.node("Slice", [full, ctx.ints([0] * spatial), ctx.ints(fshape[:spatial]),
                             ctx.ints(list(range(2, rank)))])
    # (in, out, spatial...) -> (spatial..., in, out)
    ctx.node("Transpose", [cut], ctx.out, perm=[*range(2, rank), 0, 1])
