"""ONNX lowerings of the kernels that read or write a float's bits: Signbit, Copysign and
Nextafter, through ONNX's ``BitCast`` (opset 26: ``min_opset``) to the signed integer of the
float's width (the sign bit is the integer's; its magnitude bits order the float's magnitudes),
so that they hold for -0.0 and for NaN's sign too, as numpy's do."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families.elementwise.onnx_lowerings import elem_type
from tensorplug.registry.core_entries import declare_onnx_lowering
from tensorplug.registry.onnx_lowerings import OnnxLowering

__all__ = ["BITCAST_OPSET", "lower_signbit", "lower_copysign", "lower_nextafter"]

#: the opset that brought ONNX's BitCast
BITCAST_OPSET = 26


def _int_of(dtype: np.dtype) -> np.dtype:
    """The signed integer dtype of `dtype`'s width."""
    return np.dtype(f"int{8 * dtype.itemsize}")


def _bits(ctx: LoweringContext, x: str, dtype: np.dtype) -> str:
    return ctx.node("BitCast", [x], to=elem_type(_int_of(dtype)))


def _sign_bits(ctx: LoweringContext, bits: str, dtype: np.dtype) -> str:
    """The sign bits of `bits` alone (the integer's least value as the mask)."""
    return ctx.node("BitwiseAnd", [bits, ctx.constant(np.iinfo(_int_of(dtype)).min, _int_of(dtype))])


def lower_signbit(ctx: LoweringContext) -> None:
    dtype = ctx.np_dtype(0)
    ctx.node("Less", [_bits(ctx, ctx.inputs[0], dtype), ctx.constant(0, _int_of(dtype))], ctx.out)


def lower_copysign(ctx: LoweringContext) -> None:
    """The magnitude bits of x with the sign bit of y."""
    dtype = ctx.np_dtype(0)
    magnitude = ctx.node("BitwiseAnd", [_bits(ctx, ctx.inputs[0], dtype),
                                        ctx.constant(np.iinfo(_int_of(dtype)).max, _int_of(dtype))])
    joined = ctx.node("BitwiseOr", [magnitude, _sign_bits(ctx, _bits(ctx, ctx.inputs[1], dtype), dtype)])
    ctx.node("BitCast", [joined], ctx.out, to=elem_type(dtype))


def lower_nextafter(ctx: LoweringContext) -> None:
    """x's bits one step toward y (up where y > x agrees with x > 0: a larger magnitude); the
    least subnormal with y's sign from zero; y where x == y; NaN where either is NaN."""
    dtype, (x, y) = ctx.np_dtype(0), ctx.inputs
    ints = _int_of(dtype)
    zero = ctx.constant(0, dtype)
    up = ctx.node("Equal", [ctx.node("Greater", [y, x]), ctx.node("Greater", [x, zero])])
    step = ctx.node("Where", [up, ctx.constant(1, ints), ctx.constant(-1, ints)])
    moved = ctx.node("BitCast", [ctx.node("Add", [_bits(ctx, x, dtype), step])], to=elem_type(dtype))
    tiny = ctx.node("BitwiseOr", [_sign_bits(ctx, _bits(ctx, y, dtype), dtype), ctx.constant(1, ints)])
    out = ctx.node("Where", [ctx.node("Equal", [x, zero]), ctx.node("BitCast", [tiny], to=elem_type(dtype)),
                             moved])
    out = ctx.node("Where", [ctx.node("Equal", [x, y]), y, out])
    either_nan = ctx.node("Or", [ctx.node("IsNaN", [x]), ctx.node("IsNaN", [y])])
    ctx.node("Where", [either_nan, ctx.constant(np.nan, dtype), out], ctx.out)


for _kernel, _lower in (("Signbit", lower_signbit), ("Copysign", lower_copysign),
                        ("Nextafter", lower_nextafter)):
    declare_onnx_lowering(OnnxLowering(_kernel, _lower, min_opset=BITCAST_OPSET))
