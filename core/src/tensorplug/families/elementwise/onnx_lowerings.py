"""ONNX lowerings of the elementwise family, from tables: kernels that are one ONNX operator,
and the few written as two or three (Expm1, Log1p, Rsqrt, Square, NotEqual, Trunc, Mod and
FloorDivide with Python's signs, IsFinite, Hypot, Clip)."""

from __future__ import annotations

import math

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, same_op
from tensorplug.kernel_helpers import clip_bounds

__all__ = ["ONE_OP", "elem_type"]

#: kernel -> the ONNX operator that computes it on the same inputs (Abs, Add, Subtract, Multiply,
#: Negative and Cast, which complex values reach too: ``onnx_complex.py``)
ONE_OP = {
    "Acos": "Acos", "Acosh": "Acosh", "Asin": "Asin", "Asinh": "Asinh", "Atan": "Atan",
    "Atanh": "Atanh", "Ceil": "Ceil", "Cos": "Cos", "Cosh": "Cosh", "Exp": "Exp", "Floor": "Floor",
    "Log": "Log", "LogicalNot": "Not", "Relu": "Relu",
    "Round": "Round", "Sigmoid": "Sigmoid", "Sign": "Sign", "Sin": "Sin", "Sinh": "Sinh", "Sqrt": "Sqrt",
    "Tan": "Tan", "Tanh": "Tanh", "Copy": "Identity",
    "Divide": "Div", "Maximum": "Max", "Minimum": "Min",
    "Pow": "Pow", "Equal": "Equal", "Greater": "Greater", "GreaterEqual": "GreaterOrEqual", "Less": "Less",
    "LessEqual": "LessOrEqual", "LogicalAnd": "And", "LogicalOr": "Or", "LogicalXor": "Xor",
    "Where": "Where",
}
for _kernel, _op in ONE_OP.items():
    same_op(_kernel, _op)

_BITWISE = {"BitwiseAnd": ("BitwiseAnd", "And"), "BitwiseOr": ("BitwiseOr", "Or"),
            "BitwiseXor": ("BitwiseXor", "Xor"), "BitwiseInvert": ("BitwiseNot", "Not")}


@lowering("BitwiseAnd")
@lowering("BitwiseOr")
@lowering("BitwiseXor")
@lowering("BitwiseInvert")
def lower_bitwise(ctx: LoweringContext) -> None:
    ints, bools = _BITWISE[ctx.kernel]
    ctx.node(bools if ctx.input_infos[0].dtype.kind == "bool" else ints, ctx.inputs, ctx.out)


def _one(ctx: LoweringContext) -> str:
    return ctx.constant(1, ctx.np_dtype(0))


@lowering("Expm1")
def lower_expm1(ctx: LoweringContext) -> None:
    ctx.node("Sub", [ctx.node("Exp", ctx.inputs), _one(ctx)], ctx.out)


@lowering("Log1p")
def lower_log1p(ctx: LoweringContext) -> None:
    ctx.node("Log", [ctx.node("Add", [ctx.inputs[0], _one(ctx)])], ctx.out)


@lowering("Rsqrt")
def lower_rsqrt(ctx: LoweringContext) -> None:
    ctx.node("Reciprocal", [ctx.node("Sqrt", ctx.inputs)], ctx.out)


@lowering("Square")
def lower_square(ctx: LoweringContext) -> None:
    ctx.node("Mul", [ctx.inputs[0], ctx.inputs[0]], ctx.out)


@lowering("SquaredDifference")
def lower_squared_difference(ctx: LoweringContext) -> None:
    d = ctx.node("Sub", ctx.inputs)
    ctx.node("Mul", [d, d], ctx.out)


@lowering("NotEqual")
def lower_not_equal(ctx: LoweringContext) -> None:
    ctx.node("Not", [ctx.node("Equal", ctx.inputs)], ctx.out)


@lowering("IsNan")
@lowering("IsInf")
@lowering("IsFinite")
def lower_is_finite(ctx: LoweringContext) -> None:
    x = ctx.inputs[0]
    if ctx.input_infos[0].dtype.kind != "float":  # (integers: finite, never NaN nor infinite)
        same = ctx.node("Equal", [x, x])
        ctx.node("Identity" if ctx.kernel == "IsFinite" else "Not", [same], ctx.out)
    elif ctx.kernel == "IsFinite":
        ctx.node("Not", [ctx.node("Or", [ctx.node("IsNaN", [x]), ctx.node("IsInf", [x])])], ctx.out)
    else:
        ctx.node("IsNaN" if ctx.kernel == "IsNan" else "IsInf", [x], ctx.out)


@lowering("Trunc")
def lower_trunc(ctx: LoweringContext) -> None:
    x = ctx.inputs[0]
    if ctx.input_infos[0].dtype.kind != "float":
        ctx.node("Identity", [x], ctx.out)
        return
    zero = ctx.constant(0, ctx.np_dtype(0))
    ctx.node("Where", [ctx.node("Less", [x, zero]), ctx.node("Ceil", [x]), ctx.node("Floor", [x])], ctx.out)


@lowering("Hypot")
def lower_hypot(ctx: LoweringContext) -> None:
    """big * sqrt(1 + (small / big)**2): no overflow; infinite where either is (NaN or not)."""
    dtype = ctx.np_dtype(0)
    ax, ay = ctx.node("Abs", [ctx.inputs[0]]), ctx.node("Abs", [ctx.inputs[1]])
    big, small = ctx.node("Max", [ax, ay]), ctx.node("Min", [ax, ay])
    zero, one = ctx.constant(0, dtype), ctx.constant(1, dtype)
    ratio = ctx.node("Div", [small, ctx.node("Where", [ctx.node("Equal", [big, zero]), one, big])])
    root = ctx.node("Sqrt", [ctx.node("Add", [one, ctx.node("Mul", [ratio, ratio])])])
    scaled = ctx.node("Mul", [big, root])
    infinite = ctx.node("Or", [ctx.node("IsInf", [ax]), ctx.node("IsInf", [ay])])
    ctx.node("Where", [infinite, ctx.constant(np.inf, dtype), scaled], ctx.out)


@lowering("Mod")
def lower_mod(ctx: LoweringContext) -> None:
    x, y = ctx.inputs
    if ctx.input_infos[0].dtype.kind != "float":  # (integers: the divisor's sign, as Python; 0 by 0)
        zero, safe = _safe_divisor(ctx, y)
        ctx.node("Where", [zero, y, ctx.node("Mod", [x, safe], fmod=0)], ctx.out)
        return
    dtype = ctx.np_dtype(0)
    quotient = ctx.node("Floor", [ctx.node("Div", [x, y])])
    rest = ctx.node("Sub", [x, ctx.node("Mul", [quotient, y])])
    # an infinite divisor: x where x is 0 or of y's sign, else y (Python's and numpy's answer)
    zero = ctx.constant(0, dtype)
    keep = ctx.node("Or", [ctx.node("Equal", [x, zero]),
                           ctx.node("Equal", [ctx.node("Less", [x, zero]), ctx.node("Less", [y, zero])])])
    by_infinity = ctx.node("Where", [keep, x, y])
    finite_x = ctx.node("Not", [ctx.node("IsInf", [x])])
    ctx.node("Where", [ctx.node("And", [ctx.node("IsInf", [y]), finite_x]), by_infinity, rest], ctx.out)


@lowering("FloorDivide")
def lower_floor_divide(ctx: LoweringContext) -> None:
    x, y = ctx.inputs
    if ctx.input_infos[0].dtype.kind == "float":
        ctx.node("Floor", [ctx.node("Div", [x, y])], ctx.out)
        return
    zero, safe = _safe_divisor(ctx, y)  # (integer division by 0 gives 0, as numpy)
    remainder = ctx.node("Mod", [x, safe], fmod=0)  # (x - x mod y is a multiple of y: exact division)
    ctx.node("Where", [zero, y, ctx.node("Div", [ctx.node("Sub", [x, remainder]), safe])], ctx.out)


def _safe_divisor(ctx: LoweringContext, y: str) -> tuple[str, str]:
    """(y == 0, y with its zeros made ones): integer ONNX division by zero is an error."""
    dtype = ctx.np_dtype(1)
    zero = ctx.node("Equal", [y, ctx.constant(0, dtype)])
    return zero, ctx.node("Where", [zero, ctx.constant(1, dtype), y])


@lowering("Clip")
def lower_clip(ctx: LoweringContext) -> None:
    dtype = ctx.np_dtype(0)
    low, high = clip_bounds("Clip", "onnx", dtype, ctx.attrs.get("min"), ctx.attrs.get("max"))
    ctx.node("Clip", [ctx.inputs[0], "" if low is None else ctx.constant(low, dtype),
                      "" if high is None else ctx.constant(high, dtype)], ctx.out)


#: numpy dtype -> ONNX TensorProto element type (the numbers the ONNX standard fixes)
_ELEM_TYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.uint16): 4,
               np.dtype(np.int16): 5, np.dtype(np.int32): 6, np.dtype(np.int64): 7, np.dtype(np.bool_): 9,
               np.dtype(np.float16): 10, np.dtype(np.float64): 11, np.dtype(np.uint32): 12,
               np.dtype(np.uint64): 13}


def elem_type(dtype: np.dtype) -> int:
    """The ONNX element type of a numpy dtype."""
    found = _ELEM_TYPES.get(np.dtype(dtype))
    return 16 if found is None and dtype.itemsize == 2 else int(found or 0)  # (16: bfloat16)


_UNSIGNED_OF = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16, np.dtype(np.int32): np.uint32,
                np.dtype(np.int64): np.uint64}


@lowering("LeftShift")
@lowering("RightShift")
def lower_shift(ctx: LoweringContext) -> None:
    """ONNX's BitShift takes unsigned integers: the bits reinterpreted (a cast to the unsigned
    type of the same width keeps them); a right shift of a negative number is the complement of
    the shifted complement (arithmetic, as numpy shifts)."""
    x, y = ctx.inputs
    dtype = ctx.np_dtype(0)
    if dtype.kind == "u":
        ctx.node("BitShift", [x, y], ctx.out, direction="LEFT" if ctx.kernel == "LeftShift" else "RIGHT")
        return
    if dtype not in _UNSIGNED_OF:
        raise ctx.unsupported(f"shifts of {dtype} (integers only)")
    unsigned = elem_type(np.dtype(_UNSIGNED_OF[dtype]))
    amount = ctx.node("Cast", [y], to=unsigned)
    if ctx.kernel == "LeftShift":
        shifted = ctx.node("BitShift", [ctx.node("Cast", [x], to=unsigned), amount], direction="LEFT")
        ctx.node("Cast", [shifted], ctx.out, to=elem_type(dtype))
        return
    negative = ctx.node("Less", [x, ctx.constant(0, dtype)])
    magnitude = ctx.node("Where", [negative, ctx.node("BitwiseNot", [x]), x])
    shifted = ctx.node("BitShift", [ctx.node("Cast", [magnitude], to=unsigned), amount], direction="RIGHT")
    back = ctx.node("Cast", [shifted], to=elem_type(dtype))
    ctx.node("Where", [negative, ctx.node("BitwiseNot", [back]), back], ctx.out)


@lowering("Atan2")
def lower_atan2(ctx: LoweringContext) -> None:
    """atan(x / y) moved into the quadrant: +-pi where y < 0 (or y is -0.0), +-pi/2 where y is 0,
    the infinite cases apart; the signs of zeros read through 1 / value."""
    x, y = ctx.inputs
    dtype = ctx.np_dtype(0)

    def c(value: float) -> str:
        return ctx.constant(value, dtype)

    zero = c(0.0)

    def negative(v: str) -> str:  # v < 0, -0.0 included
        minus_zero = ctx.node("And", [ctx.node("Equal", [v, zero]),
                                      ctx.node("Less", [ctx.node("Div", [c(1.0), v]), zero])])
        return ctx.node("Or", [ctx.node("Less", [v, zero]), minus_zero])

    x_negative, y_negative = negative(x), negative(y)
    sign = ctx.node("Where", [x_negative, c(-1.0), c(1.0)])
    base = ctx.node("Atan", [ctx.node("Div", [x, y])])
    turned = ctx.node("Add", [base, ctx.node("Mul", [sign, c(math.pi)])])
    value = ctx.node("Where", [y_negative, turned, base])
    # y == 0 (either sign): +-pi/2 for x != 0; for x == 0: x itself (y +0) or +-pi (y -0)
    y_zero = ctx.node("Equal", [y, zero])
    x_zero = ctx.node("Equal", [x, zero])
    at_origin = ctx.node("Where", [y_negative, ctx.node("Mul", [sign, c(math.pi)]), x])
    on_axis = ctx.node("Where", [x_zero, at_origin, ctx.node("Mul", [sign, c(math.pi / 2)])])
    value = ctx.node("Where", [y_zero, on_axis, value])
    # both infinite: +-pi/4, or +-3pi/4 when y is -inf
    both = ctx.node("And", [ctx.node("IsInf", [x]), ctx.node("IsInf", [y])])
    corner = ctx.node("Mul", [sign, ctx.node("Where", [y_negative, c(3 * math.pi / 4), c(math.pi / 4)])])
    ctx.node("Where", [both, corner, value], ctx.out)
