"""ONNX lowerings of the normalization family: FusedBatchNorm ((x - mean) * scale /
sqrt(variance + epsilon) + offset, broadcast as the kernel broadcasts) and LRN (ONNX's ``LRN``
across channels, channels-first; ONNX divides alpha by the window size, the kernel does not)."""

from __future__ import annotations

import numpy as np

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


def _window_sum(ctx: LoweringContext, a: str, radius: int) -> str:
    """The sum of `a` over channels c - radius .. c + radius (zeros past the ends), channels
    last: a convolution with ones over the channels as one row each."""
    shape = ctx.input_infos[1].shape
    rows = int(np.prod(shape[:-1]))
    line = ctx.node("Reshape", [a, ctx.ints([rows, 1, shape[-1]])])
    ones = ctx.constant(np.ones((1, 1, 2 * radius + 1), ctx.np_dtype(1)))
    summed = ctx.node("Conv", [line, ones], pads=[radius, radius], kernel_shape=[2 * radius + 1])
    return ctx.node("Reshape", [summed, ctx.ints(list(shape))])


@lowering("LRNGrad")
def lower_lrn_grad(ctx: LoweringContext) -> None:
    """dy * N^-beta - 2 alpha beta x * S(dy * x * N^(-beta - 1)), N = bias + alpha S(x^2), S the
    window sum over channels (as the kernel computes it)."""
    dy, x = ctx.inputs[0], ctx.inputs[1]
    dtype = ctx.np_dtype(1)
    radius = int(ctx.attrs.get("depth_radius", 5))
    alpha, beta = float(ctx.attrs.get("alpha", 1.0)), float(ctx.attrs.get("beta", 0.5))
    bias = float(ctx.attrs.get("bias", 1.0))
    norm = ctx.node("Add", [ctx.constant(bias, dtype),
                            ctx.node("Mul", [ctx.constant(alpha, dtype),
                                             _window_sum(ctx, ctx.node("Mul", [x, x]), radius)])])
    p = ctx.node("Pow", [norm, ctx.constant(-beta, dtype)])
    inner = ctx.node("Div", [ctx.node("Mul", [ctx.node("Mul", [dy, x]), p]), norm])
    spread = ctx.node("Mul", [ctx.node("Mul", [ctx.constant(2 * alpha * beta, dtype), x]),
                              _window_sum(ctx, inner, radius)])
    ctx.node("Sub", [ctx.node("Mul", [dy, p]), spread], ctx.out)
