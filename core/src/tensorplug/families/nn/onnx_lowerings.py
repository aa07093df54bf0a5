"""ONNX lowerings of the nn family: Softmax and LogSoftmax (opset 13's any-axis forms), and
SparseSoftmaxCrossEntropyWithLogits (loss and its gradient, from ``LogSoftmax``)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_softmax", "lower_sparse_cross_entropy"]


@lowering("Softmax")
@lowering("LogSoftmax")
def lower_softmax(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    if rank == 0:  # (one element: softmax 1, log-softmax 0)
        one = ctx.node(ctx.kernel, [ctx.node("Unsqueeze", [ctx.inputs[0], ctx.ints([0])])], axis=0)
        ctx.node("Squeeze", [one, ctx.ints([0])], ctx.out)
        return
    ctx.node(ctx.kernel, ctx.inputs, ctx.out, axis=int(ctx.attrs.get("axis", -1)) % rank)


@lowering("SparseSoftmaxCrossEntropyWithLogits")
def lower_sparse_cross_entropy(ctx: LoweringContext) -> None:
    features, labels = ctx.inputs
    shape = ctx.input_infos[0].shape
    dtype = ctx.np_dtype(0)
    labels = ctx.node("Cast", [labels], to=7)  # (int64)
    # a label out of [0, classes): NaN loss and gradient row, as the kernel gives
    bad = ctx.node("Or", [ctx.node("Less", [labels, ctx.ints(0)]),
                          ctx.node("GreaterOrEqual", [labels, ctx.ints(shape[-1])])])
    safe = ctx.node("Where", [bad, ctx.ints(0), labels])
    log_p = ctx.node("LogSoftmax", [features], axis=len(shape) - 1)
    picked = ctx.node("GatherElements", [log_p, ctx.node("Unsqueeze", [safe, ctx.ints([-1])])],
                      axis=len(shape) - 1)
    nan = ctx.constant(np.nan, dtype)
    loss = ctx.node("Neg", [ctx.node("Squeeze", [picked, ctx.ints([-1])])])
    ctx.node("Where", [bad, nan, loss], ctx.outputs[0])
    one_hot = ctx.node("OneHot", [safe, ctx.ints(shape[-1]), ctx.constant([0, 1], dtype)], axis=-1)
    grad = ctx.node("Sub", [ctx.node("Exp", [log_p]), one_hot])
    ctx.node("Where", [ctx.node("Unsqueeze", [bad, ctx.ints([-1])]), nan, grad], ctx.outputs[1])
