"""ONNX lowerings of the elementwise kernels that complex values reach, on the (real, imaginary)
pairs that hold them in the graph (``families/_common/onnx_complex.py``): Real, Imag and Conj;
Abs (the modulus), Negative, Add and Subtract (the pairs' own operators), Multiply (the complex
product) and Cast (to a complex dtype: the imaginary parts zero; from one: the real parts, as
numpy casts). On real values each is its one ONNX operator."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_complex import (
    conjugate,
    imag_part,
    is_complex,
    make_pair,
    pair_lowering,
    real_part,
)
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_real", "lower_imag", "lower_conj", "lower_abs", "lower_same", "lower_multiply",
           "lower_cast"]

_SAME = {"Negative": "Neg", "Add": "Add", "Subtract": "Sub"}


@pair_lowering("Real")
def lower_real(ctx: LoweringContext) -> None:
    real_part(ctx, ctx.inputs[0], ctx.out)


@pair_lowering("Imag")
def lower_imag(ctx: LoweringContext) -> None:
    imag_part(ctx, ctx.inputs[0], ctx.out)


@pair_lowering("Conj")
def lower_conj(ctx: LoweringContext) -> None:
    conjugate(ctx, ctx.inputs[0], ctx.np_dtype(0, output=True).type(0).real.dtype, ctx.out)


@pair_lowering("Abs")
def lower_abs(ctx: LoweringContext) -> None:
    """|z| = sqrt(re^2 + im^2) of pairs; ONNX's Abs of real values."""
    if not is_complex(ctx):
        ctx.node("Abs", ctx.inputs, ctx.out)
        return
    x = ctx.inputs[0]
    squares = ctx.node("ReduceSum", [ctx.node("Mul", [x, x]), ctx.ints([-1])], keepdims=0)
    ctx.node("Sqrt", [squares], ctx.out)


@pair_lowering("Negative")
@pair_lowering("Add")
@pair_lowering("Subtract")
def lower_same(ctx: LoweringContext) -> None:
    """The pairs' own operator: negation, sums and differences act on each part (the trailing
    pair axis broadcasts with itself)."""
    ctx.node(_SAME[ctx.kernel], ctx.inputs, ctx.out)


@pair_lowering("Multiply")
def lower_multiply(ctx: LoweringContext) -> None:
    """(a + bi)(c + di) = (ac - bd) + (ad + bc)i on pairs; ONNX's Mul on real values."""
    if not is_complex(ctx):
        ctx.node("Mul", ctx.inputs, ctx.out)
        return
    x, y = ctx.inputs
    a, b, c, d = real_part(ctx, x), imag_part(ctx, x), real_part(ctx, y), imag_part(ctx, y)
    re = ctx.node("Sub", [ctx.node("Mul", [a, c]), ctx.node("Mul", [b, d])])
    im = ctx.node("Add", [ctx.node("Mul", [a, d]), ctx.node("Mul", [b, c])])
    make_pair(ctx, re, im, ctx.out)


@pair_lowering("Cast")
def lower_cast(ctx: LoweringContext) -> None:
    source, target = is_complex(ctx), is_complex(ctx, output=True)
    dtype = ctx.np_dtype(0, output=True)
    real_target = dtype.type(0).real.dtype if target else dtype
    x = real_part(ctx, ctx.inputs[0]) if source and not target else ctx.inputs[0]
    if source and target:  # (pairs to pairs of another precision)
        ctx.node("Cast", [x], ctx.out, to=elem_type(real_target))
        return
    if not target:
        ctx.node("Cast", [x], ctx.out, to=elem_type(real_target))
        return
    re = ctx.node("Cast", [x], to=elem_type(real_target))
    zeros = ctx.node("Expand", [ctx.constant(0, real_target), ctx.node("Shape", [re])])
    make_pair(ctx, re, zeros, ctx.out)
