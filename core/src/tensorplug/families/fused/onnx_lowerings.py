"""ONNX lowerings of the fused family: the product or convolution, the bias, the activation."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import activation, lowering, to_channels_last
from tensorplug.families.convolution.onnx_lowerings import conv
from tensorplug.families.linalg.onnx_lowerings import matmul

__all__ = ["lower_fused_matmul", "lower_fused_conv"]


@lowering("FusedMatMul")
def lower_fused_matmul(ctx: LoweringContext) -> None:
    a, b, bias, prelu = ctx.inputs
    y = matmul(ctx, a, b, bool(ctx.attrs.get("transpose_a")), bool(ctx.attrs.get("transpose_b")))
    if ctx.attrs.get("has_bias"):
        y = ctx.node("Add", [y, bias])
    activation(ctx, y, ctx.out, prelu)


@lowering("FusedConv2D")
@lowering("FusedDepthwiseConv2D")
def lower_fused_conv(ctx: LoweringContext) -> None:
    x, filter_, bias, prelu = ctx.inputs
    one_d = len(ctx.input_infos[2].shape) == 1
    use_bias = bool(ctx.attrs.get("has_bias")) and one_d
    y, channels_last = conv(ctx, x, filter_, None, bias if use_bias else None,
                            depthwise=ctx.kernel == "FusedDepthwiseConv2D")
    if channels_last:
        y = to_channels_last(ctx, y, len(ctx.output_infos[0].shape))
    if ctx.attrs.get("has_bias") and not use_bias:
        if not channels_last:
            raise ctx.unsupported("a bias of more than one dimension with channels-first data")
        y = ctx.node("Add", [y, bias])
    if ctx.attrs.get("activation") == "prelu" and not channels_last:
        raise ctx.unsupported("a prelu activation with channels-first data")
    activation(ctx, y, ctx.out, prelu)
