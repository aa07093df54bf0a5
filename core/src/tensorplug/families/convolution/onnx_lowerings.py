"""ONNX lowerings of the convolution family: Conv2D and Conv3D as ONNX ``Conv`` (channels-first),
with a ``Transpose`` on each side for channels-last data and the filter moved from
(spatial..., in/groups, out) to ONNX's (out, in/groups, spatial...)."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import (
    lowering,
    onnx_pads,
    per_dim,
    to_channels_first,
    to_channels_last,
)

__all__ = ["conv", "lower_conv"]


def conv(ctx: LoweringContext, x: str, filter_: str, out: str | None, bias: str | None = None,
         depthwise: bool = False) -> tuple[str, bool]:
    """ONNX ``Conv`` of the call's x and filter (channels-first); returns the result's name and
    whether it is channels-last yet to be (the caller transposes back, after its own steps)."""
    rank = len(ctx.input_infos[0].shape)
    spatial = rank - 2
    channels_last = str(ctx.attrs.get("data_format", "NHWC"))[-1] == "C"
    if channels_last:
        x = to_channels_first(ctx, x, rank)
    fshape = ctx.input_infos[1].shape
    if depthwise:  # (spatial..., in, multiplier) -> (spatial..., 1, in * multiplier), groups = in
        filter_ = ctx.node("Reshape", [filter_, ctx.ints([*fshape[:-2], 1, fshape[-2] * fshape[-1]])])
        groups = fshape[-2]
    else:
        groups = int(ctx.attrs.get("groups", 1))
    weight = ctx.node("Transpose", [filter_], perm=[spatial + 1, spatial, *range(spatial)])
    inputs = [x, weight] + ([bias] if bias is not None else [])
    y = ctx.node("Conv", inputs, None if channels_last else out,
                 strides=per_dim(ctx.attrs.get("strides", 1), spatial),
                 dilations=per_dim(ctx.attrs.get("dilations", 1), spatial),
                 pads=onnx_pads(ctx.attrs.get("padding", ((0, 0),) * spatial)), group=groups,
                 kernel_shape=list(fshape[:spatial]))
    return y, channels_last


@lowering("Conv2D")
@lowering("Conv3D")
def lower_conv(ctx: LoweringContext) -> None:
    y, channels_last = conv(ctx, ctx.inputs[0], ctx.inputs[1], ctx.out)
    if channels_last:
        to_channels_last(ctx, y, len(ctx.output_infos[0].shape), ctx.out)
