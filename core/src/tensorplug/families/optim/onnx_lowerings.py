"""ONNX lowering of AdamUpdate: Adam's step as the kernel computes it (m and v decayed, the
parameter moved by step_size * m / (sqrt(v) + epsilon_hat), the two 0-d inputs), the three new
values out."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_adam_update"]


@lowering("AdamUpdate")
def lower_adam_update(ctx: LoweringContext) -> None:
    param, grad, m, v, step_size, epsilon_hat = ctx.inputs
    dtype = ctx.np_dtype(0)
    b1, b2 = float(ctx.attrs["beta1"]), float(ctx.attrs["beta2"])

    def c(value: float) -> str:
        return ctx.constant(value, dtype)

    decayed = ctx.node("Mul", [m, c(b1)])
    m_new = ctx.node("Add", [decayed, ctx.node("Mul", [grad, c(1.0 - b1)])], ctx.outputs[1])
    squared = ctx.node("Mul", [ctx.node("Mul", [grad, grad]), c(1.0 - b2)])
    v_new = ctx.node("Add", [squared, ctx.node("Mul", [v, c(b2)])], ctx.outputs[2])
    denom = ctx.node("Add", [ctx.node("Sqrt", [v_new]), epsilon_hat])
    step = ctx.node("Div", [ctx.node("Mul", [m_new, step_size]), denom])
    ctx.node("Sub", [param, step], ctx.outputs[0])
