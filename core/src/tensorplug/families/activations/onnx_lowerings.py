"""ONNX lowerings of the activation family: Elu, Selu, LeakyRelu, Prelu, Relu6, Softplus,
LogSigmoid, Gelu (ONNX 20's ``Gelu``), Step, AddN (``Sum``), and the gradients ReluGrad and
EluGrad (``Where``)."""

from __future__ import annotations

import math

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


@lowering("GeluGrad")
def lower_gelu_grad(ctx: LoweringContext) -> None:
    """dy times Gelu's slope: Phi(x) + x phi(x) (exact), or the tanh form's derivative."""
    dy, x = ctx.inputs
    dtype = ctx.np_dtype(0)

    def c(value: float) -> str:
        return ctx.constant(value, dtype)

    half, one = c(0.5), c(1.0)
    if ctx.attrs.get("approximate", True):
        k, a = math.sqrt(2 / math.pi), 0.044715
        x2 = ctx.node("Mul", [x, x])
        cubic = ctx.node("Add", [one, ctx.node("Mul", [c(a), x2])])
        inner = ctx.node("Mul", [c(k), ctx.node("Mul", [x, cubic])])
        t = ctx.node("Tanh", [inner])
        slope_inner = ctx.node("Mul", [c(k), ctx.node("Add", [one, ctx.node("Mul", [c(3 * a), x2])])])
        sech2 = ctx.node("Sub", [one, ctx.node("Mul", [t, t])])
        outer = ctx.node("Mul", [ctx.node("Mul", [half, x]), ctx.node("Mul", [sech2, slope_inner])])
        slope = ctx.node("Add", [ctx.node("Mul", [half, ctx.node("Add", [one, t])]), outer])
    else:
        erf = ctx.node("Erf", [ctx.node("Mul", [x, c(1 / math.sqrt(2))])])
        cdf = ctx.node("Mul", [half, ctx.node("Add", [one, erf])])
        pdf = ctx.node("Mul", [c(1 / math.sqrt(2 * math.pi)),
                               ctx.node("Exp", [ctx.node("Mul", [c(-0.5), ctx.node("Mul", [x, x])])])])
        slope = ctx.node("Add", [cdf, ctx.node("Mul", [x, pdf])])
    ctx.node("Mul", [dy, slope], ctx.out)
