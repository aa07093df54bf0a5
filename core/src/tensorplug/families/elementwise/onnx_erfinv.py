"""The ONNX lowering of Erfinv (ONNX has no such operator): XLA's polynomials, as the kernels
compute them, written out in nodes. ONNX has no Log1p either: w = -log1p(-x * x) is taken as
-log((1 - x)(1 + x)) in float64 (exact products, so w is right to float32's last bit, and to
float64's nearly); each region's polynomial is evaluated and the right one selected (``Where``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type
from tensorplug.kernel_helpers.random_constants import (
    ERFINV_F32_ABOVE_5,
    ERFINV_F32_BELOW_5,
    ERFINV_F64_ABOVE_16,
    ERFINV_F64_BELOW_6_25,
    ERFINV_F64_BELOW_16,
)

__all__ = ["lower_erfinv"]


def _horner(ctx: LoweringContext, coefficients: Sequence[float], w: str, dtype: np.dtype) -> str:
    p = ctx.node("Add", [ctx.node("Mul", [w, ctx.constant(coefficients[0], dtype)]),
                         ctx.constant(coefficients[1], dtype)])
    for c in coefficients[2:]:
        p = ctx.node("Add", [ctx.node("Mul", [p, w]), ctx.constant(c, dtype)])
    return p


def _shifted(ctx: LoweringContext, x: str, by: float, dtype: np.dtype) -> str:
    return ctx.node("Sub", [x, ctx.constant(by, dtype)])


@lowering("Erfinv")
def lower_erfinv(ctx: LoweringContext) -> None:
    """erfinv(x) = x * p(w); +-inf at +-1 (x * inf); float16 and bfloat16 through float32."""
    source = ctx.np_dtype(0)
    dtype = np.dtype(np.float64 if source == np.float64 else np.float32)
    x = ctx.inputs[0] if source == dtype else ctx.node("Cast", [ctx.inputs[0]], to=elem_type(dtype))
    wide = x if dtype == np.float64 else ctx.node("Cast", [x], to=elem_type(np.dtype(np.float64)))
    one = ctx.constant(1.0, np.float64)
    w = ctx.node("Neg", [ctx.node("Log", [ctx.node("Mul", [ctx.node("Sub", [one, wide]),
                                                            ctx.node("Add", [one, wide])])])])
    if dtype == np.float32:
        w = ctx.node("Cast", [w], to=elem_type(dtype))
    root = ctx.node("Sqrt", [w])
    if dtype == np.float32:
        split, common = 5.0, _horner(ctx, ERFINV_F32_BELOW_5, _shifted(ctx, w, 2.5, dtype), dtype)
        tails = _horner(ctx, ERFINV_F32_ABOVE_5, _shifted(ctx, root, 3.0, dtype), dtype)
    else:
        split, common = 6.25, _horner(ctx, ERFINV_F64_BELOW_6_25, _shifted(ctx, w, 3.125, dtype), dtype)
        tails = ctx.node("Where", [ctx.node("Less", [w, ctx.constant(16.0, dtype)]),
                                   _horner(ctx, ERFINV_F64_BELOW_16, _shifted(ctx, root, 3.25, dtype), dtype),
                                   _horner(ctx, ERFINV_F64_ABOVE_16, _shifted(ctx, root, 5.0, dtype), dtype)])
    p = ctx.node("Where", [ctx.node("Less", [w, ctx.constant(split, dtype)]), common, tails])
    at_one = ctx.node("Equal", [ctx.node("Abs", [x]), ctx.constant(1.0, dtype)])
    infinite = ctx.node("Mul", [x, ctx.constant(np.inf, dtype)])
    out = ctx.node("Where", [at_one, infinite, ctx.node("Mul", [p, x])])
    if source == dtype:
        ctx.node("Identity", [out], ctx.out)
    else:
        ctx.node("Cast", [out], ctx.out, to=elem_type(source))
