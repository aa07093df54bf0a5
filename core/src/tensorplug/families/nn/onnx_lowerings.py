"""ONNX lowerings of the nn family: Softmax and LogSoftmax (opset 13's any-axis forms), and
SparseSoftmaxCrossEntropyWithLogits (loss and its gradient, from ``LogSoftmax``)."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_softmax", "lower_sparse_cross_entropy"]


@lowering("Softmax")
@lowering("LogSoftmax")
def lower_softmax(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    ctx.node(ctx.kernel, ctx.inputs, ctx.out, axis=int(ctx.attrs.get("axis", -1)) % max(rank, 1))


@lowering("SparseSoftmaxCrossEntropyWithLogits")
def lower_sparse_cross_entropy(ctx: LoweringContext) -> None:
    features, labels = ctx.inputs
    shape = ctx.input_infos[0].shape
    dtype = ctx.np_dtype(0)
    labels = ctx.node("Cast", [labels], to=7)  # (int64)
    log_p = ctx.node("LogSoftmax", [features], axis=len(shape) - 1)
    picked = ctx.node("GatherElements", [log_p, ctx.node("Unsqueeze", [labels, ctx.ints([-1])])],
                      axis=len(shape) - 1)
    ctx.node("Neg", [ctx.node("Squeeze", [picked, ctx.ints([-1])])], ctx.outputs[0])
    one_hot = ctx.node("OneHot", [labels, ctx.ints(shape[-1]), ctx.constant([0, 1], dtype)], axis=-1)
    ctx.node("Sub", [ctx.node("Exp", [log_p]), one_hot], ctx.outputs[1])
