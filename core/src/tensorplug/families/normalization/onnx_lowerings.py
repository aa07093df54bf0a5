"""ONNX lowerings of the normalization family: FusedBatchNorm ((x - mean) * scale /
sqrt(variance + epsilon) + offset, broadcast as the kernel broadcasts) and LRN (ONNX's ``LRN``
across channels, channels-first; ONNX divides alpha by the window size, the kernel does not)."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, to_channels_first, to_channels_last

__all__ = ["lower_fused_batch_norm", "lower_lrn"]


@lowering("FusedBatchNorm")
def lower_fused_batch_norm(ctx: LoweringContext) -> None:
    x, scale, offset, mean, variance = ctx.inputs
    eps = ctx.constant(ctx.attrs.get("epsilon", 1e-3), ctx.np_dtype(4))
    factor = ctx.node("Div", [scale, ctx.node("Sqrt", [ctx.node("Add", [variance, eps])])])
    centered = ctx.node("Sub", [x, mean])
    ctx.node("Add", [ctx.node("Mul", [centered, factor]), offset], ctx.out)


@lowering("LRN")
def lower_lrn(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    if rank < 3:
        raise ctx.unsupported("ONNX's LRN takes inputs of 3 or more dimensions")
    radius = int(ctx.attrs.get("depth_radius", 5))
    size = 2 * radius + 1
    shape = ctx.input_infos[0].shape
    x = to_channels_first(ctx, ctx.inputs[0], rank)
    first = [shape[0], shape[-1], *shape[1:-1]]  # (the channels-first shape)
    x = ctx.node("Reshape", [x, ctx.ints([first[0], first[1], -1, 1])])  # (onnxruntime's LRN: 4-d only)
    y = ctx.node("LRN", [x], size=size, alpha=float(ctx.attrs.get("alpha", 1.0)) * size,
                 beta=float(ctx.attrs.get("beta", 0.5)), bias=float(ctx.attrs.get("bias", 1.0)))
    to_channels_last(ctx, ctx.node("Reshape", [y, ctx.ints(first)]), rank, ctx.out)
