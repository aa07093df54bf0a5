"""ONNX lowerings of the activation family: Elu, Selu, LeakyRelu, Prelu, Relu6, Softplus,
LogSigmoid, Gelu (ONNX 20's ``Gelu``), Step, AddN (``Sum``), and the gradients ReluGrad and
EluGrad (``Where``)."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, same_op

__all__ = ["lower_elu"]

same_op("Selu", "Selu")
same_op("Prelu", "PRelu")
same_op("Softplus", "Softplus")


@lowering("AddN")
def lower_add_n(ctx: LoweringContext) -> None:
    if ctx.input_infos[0].dtype.is_floating or len(ctx.inputs) == 1:
        ctx.node("Sum" if ctx.input_infos[0].dtype.is_floating else "Identity", ctx.inputs, ctx.out)
        return  # (ONNX's Sum takes floats)
    total = ctx.inputs[0]
    for k, x in enumerate(ctx.inputs[1:], 2):
        total = ctx.node("Add", [total, x], ctx.out if k == len(ctx.inputs) else None)


@lowering("Elu")
def lower_elu(ctx: LoweringContext) -> None:
    ctx.node("Elu", ctx.inputs, ctx.out, alpha=float(ctx.attrs.get("alpha", 1.0)))


@lowering("LeakyRelu")
def lower_leaky_relu(ctx: LoweringContext) -> None:
    ctx.node("LeakyRelu", ctx.inputs, ctx.out, alpha=float(ctx.attrs.get("alpha", 0.2)))


@lowering("Relu6")
def lower_relu6(ctx: LoweringContext) -> None:
    dtype = ctx.np_dtype(0)
    ctx.node("Clip", [ctx.inputs[0], ctx.constant(0, dtype), ctx.constant(6, dtype)], ctx.out)


@lowering("LogSigmoid")
def lower_log_sigmoid(ctx: LoweringContext) -> None:
    ctx.node("Neg", [ctx.node("Softplus", [ctx.node("Neg", ctx.inputs)])], ctx.out)


@lowering("Gelu")
def lower_gelu(ctx: LoweringContext) -> None:
    approximate = "tanh" if ctx.attrs.get("approximate", True) else "none"
    ctx.node("Gelu", ctx.inputs, ctx.out, approximate=approximate)


@lowering("Step")
def lower_step(ctx: LoweringContext) -> None:
    x = ctx.inputs[0]
    dtype = ctx.np_dtype(0)
    positive = ctx.node("Greater", [x, ctx.constant(0, dtype)])
    alpha = ctx.constant(ctx.attrs.get("alpha", 0.0), dtype)
    stepped = ctx.node("Where", [positive, ctx.constant(1, dtype), alpha])
    ctx.node("Where", [ctx.node("IsNaN", [x]), x, stepped], ctx.out)


@lowering("ReluGrad")
def lower_relu_grad(ctx: LoweringContext) -> None:
    dy, x = ctx.inputs
    dtype = ctx.np_dtype(0)
    ctx.node("Where", [ctx.node("Greater", [x, ctx.constant(0, dtype)]), dy, ctx.constant(0, dtype)], ctx.out)


@lowering("EluGrad")
def lower_elu_grad(ctx: LoweringContext) -> None:
    dy, y = ctx.inputs
    dtype = ctx.np_dtype(0)
    slope = ctx.node("Mul", [dy, ctx.node("Add", [y, ctx.constant(ctx.attrs.get("alpha", 1.0), dtype)])])
    ctx.node("Where", [ctx.node("Greater", [y, ctx.constant(0, dtype)]), dy, slope], ctx.out)
