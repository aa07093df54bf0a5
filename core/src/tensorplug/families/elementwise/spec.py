"""Kernel specs of the elementwise family: unary math, binary arithmetic, comparisons,
logic, bitwise operations, Cast, Where and Clip. Binary kernels take inputs of one dtype (ops promote first)
and broadcast."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import (
    ALL_DTYPES,
    ALL_NUMERIC_DTYPES,
    COMPLEX_DTYPES,
    FLOAT_DTYPES,
    INEXACT_DTYPES,
    INT_DTYPES,
    NUMERIC_DTYPES,
    DType,
    bool_,
    real_of,
)
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import (
    as_dtype_attr,
    as_float_or_none,
    broadcast_rule,
    broadcast_shapes,
    op_prefix,
    same_as_first,
)
from tensorplug.registry.core_entries import declare_spec

BOOL = (bool_,)
BITS = INT_DTYPES + BOOL  # what the bitwise kernels take: integers, and bools as one bit
NUMBERS = ALL_NUMERIC_DTYPES  # integers, real floats and complex (the standard's "numeric")
INEXACT = INEXACT_DTYPES  # real and complex floating (the standard's "floating-point")


def real_part_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    """Rule: the input's shape, in the real dtype of its precision (complex64 -> float32)."""
    return [TensorInfo(infos[0].shape, real_of(infos[0].dtype))]


def _unary(name: str, dtypes: tuple, doc: str, differentiable: bool = True,
           out_bool: bool = False, real_out: bool = False) -> KernelSpec:
    infer = broadcast_rule(bool_) if out_bool else real_part_rule if real_out else same_as_first
    return declare_spec(KernelSpec(
        name=name, inputs=("x",), infer=infer,
        input_dtypes={"x": dtypes}, differentiable=differentiable and not out_bool, doc=doc,
    ))


def _binary(name: str, dtypes: tuple, doc: str, out_bool: bool = False,
            differentiable: bool = True) -> KernelSpec:
    return declare_spec(KernelSpec(
        name=name, inputs=("x", "y"), infer=broadcast_rule(bool_ if out_bool else None),
        input_dtypes={"x": dtypes, "y": dtypes}, same_dtype=("x", "y"),
        differentiable=differentiable and not out_bool, doc=doc,
    ))


# -- unary ---------------------------------------------------------------------------------
NEGATIVE = _unary("Negative", NUMBERS, "-x")
ABS = _unary("Abs", NUMBERS, "|x|; of a complex x its modulus, in the real dtype of its precision",
             real_out=True)
SIGN = _unary("Sign", NUMBERS, "-1, 0 or 1 by the sign of x (x / |x| for complex, 0 at 0); "
              "gradient zero (as JAX)")
SQUARE = _unary("Square", NUMBERS, "x * x")
FLOOR = _unary("Floor", FLOAT_DTYPES, "largest integer <= x; gradient zero")
CEIL = _unary("Ceil", FLOAT_DTYPES, "smallest integer >= x; gradient zero")
ROUND = _unary("Round", INEXACT, "nearest integer, halves to even (complex: each part); "
               "gradient zero")
EXP = _unary("Exp", INEXACT, "e ** x")
LOG = _unary("Log", INEXACT, "natural logarithm")
LOG1P = _unary("Log1p", INEXACT, "log(1 + x), accurate for small x")
EXPM1 = _unary("Expm1", INEXACT, "exp(x) - 1, accurate for small x")
SQRT = _unary("Sqrt", INEXACT, "square root")
SIN = _unary("Sin", INEXACT, "sine")
COS = _unary("Cos", INEXACT, "cosine")
TAN = _unary("Tan", INEXACT, "tangent")
TANH = _unary("Tanh", INEXACT, "hyperbolic tangent")
SIGMOID = _unary("Sigmoid", FLOAT_DTYPES, "1 / (1 + exp(-x)), computed stably")
ERFINV = _unary("Erfinv", FLOAT_DTYPES, "the inverse error function on [-1, 1] (+-inf at +-1, nan "
                "beyond), as XLA's ErfInv (its polynomials: float16 and bfloat16 through float32)")
RELU = _unary("Relu", NUMERIC_DTYPES, "max(x, 0); gradient 0 at x <= 0")
LOGICAL_NOT = _unary("LogicalNot", BOOL, "not x", differentiable=False)
TRUNC = _unary("Trunc", FLOAT_DTYPES, "x rounded toward zero; gradient zero")
ACOS = _unary("Acos", INEXACT, "inverse cosine, in [0, pi]; nan outside [-1, 1]")
ACOSH = _unary("Acosh", INEXACT, "inverse hyperbolic cosine; nan below 1")
ASIN = _unary("Asin", INEXACT, "inverse sine, in [-pi/2, pi/2]; nan outside [-1, 1]")
ASINH = _unary("Asinh", INEXACT, "inverse hyperbolic sine")
ATAN = _unary("Atan", INEXACT, "inverse tangent, in [-pi/2, pi/2]")
ATANH = _unary("Atanh", INEXACT, "inverse hyperbolic tangent; +-inf at +-1, nan beyond")
COSH = _unary("Cosh", INEXACT, "hyperbolic cosine")
SINH = _unary("Sinh", INEXACT, "hyperbolic sine")
IS_NAN = _unary("IsNan", NUMBERS, "whether x is NaN (bool)", out_bool=True)
IS_INF = _unary("IsInf", NUMBERS, "whether x is +-inf (bool)", out_bool=True)
IS_FINITE = _unary("IsFinite", NUMBERS, "whether x is neither inf nor NaN (bool)", out_bool=True)
SIGNBIT = _unary("Signbit", FLOAT_DTYPES, "whether x's sign bit is set (-0.0 and -nan too; bool)",
                 out_bool=True)
REAL = _unary("Real", COMPLEX_DTYPES, "the real part, in the real dtype of x's precision (ops give "
              "real x unchanged)", real_out=True)
IMAG = _unary("Imag", COMPLEX_DTYPES, "the imaginary part, in the real dtype of x's precision (ops "
              "give zeros for real x)", real_out=True)
CONJ = _unary("Conj", COMPLEX_DTYPES, "the complex conjugate: the imaginary part negated (ops give "
              "real x unchanged)")
BITWISE_INVERT = _unary("BitwiseInvert", BITS, "~x: every bit flipped (not x for bool)",
                        differentiable=False)

# -- binary --------------------------------------------------------------------------------
ADD = _binary("Add", NUMBERS, "x + y")
SUBTRACT = _binary("Subtract", NUMBERS, "x - y")
MULTIPLY = _binary("Multiply", NUMBERS, "x * y")
DIVIDE = _binary("Divide", INEXACT, "x / y (true division; ops cast integers to float)")
FLOOR_DIVIDE = _binary("FloorDivide", NUMERIC_DTYPES, "floor(x / y); integers divided by 0 give 0 "
                       "(the Array API leaves it unspecified); gradient zero",
                       differentiable=True)
POW = _binary("Pow", NUMBERS, "x ** y")
MAXIMUM = _binary("Maximum", NUMERIC_DTYPES, "elementwise max; ties split the gradient")
MINIMUM = _binary("Minimum", NUMERIC_DTYPES, "elementwise min; ties split the gradient")
EQUAL = _binary("Equal", ALL_DTYPES, "x == y", out_bool=True)
NOT_EQUAL = _binary("NotEqual", ALL_DTYPES, "x != y", out_bool=True)
LESS = _binary("Less", NUMERIC_DTYPES, "x < y", out_bool=True)
LESS_EQUAL = _binary("LessEqual", NUMERIC_DTYPES, "x <= y", out_bool=True)
GREATER = _binary("Greater", NUMERIC_DTYPES, "x > y", out_bool=True)
GREATER_EQUAL = _binary("GreaterEqual", NUMERIC_DTYPES, "x >= y", out_bool=True)
LOGICAL_AND = _binary("LogicalAnd", BOOL, "x and y", out_bool=True)
LOGICAL_OR = _binary("LogicalOr", BOOL, "x or y", out_bool=True)
LOGICAL_XOR = _binary("LogicalXor", BOOL, "x != y for bools", out_bool=True)
ATAN2 = _binary("Atan2", FLOAT_DTYPES, "the inverse tangent of x / y in the quadrant of the point "
                "(y, x), in [-pi, pi] (x is the y-coordinate)")
COPYSIGN = _binary("Copysign", FLOAT_DTYPES, "|x| with the sign bit of y")
HYPOT = _binary("Hypot", FLOAT_DTYPES, "sqrt(x * x + y * y) without overflow or underflow")
NEXTAFTER = _binary("Nextafter", FLOAT_DTYPES, "the next floating-point value after x toward y; "
                    "gradient 1 for x, 0 for y")
MOD = _binary("Mod", NUMERIC_DTYPES, "x - y * floor(x / y), with the sign of y (Python's %); "
              "integers modulo 0 give 0 (the Array API leaves it unspecified)")
BITWISE_AND = _binary("BitwiseAnd", BITS, "x & y", differentiable=False)
BITWISE_OR = _binary("BitwiseOr", BITS, "x | y", differentiable=False)
BITWISE_XOR = _binary("BitwiseXor", BITS, "x ^ y", differentiable=False)
LEFT_SHIFT = _binary("LeftShift", INT_DTYPES, "x << y; a shift of the bit width or more, or "
                     "negative, gives 0", differentiable=False)
RIGHT_SHIFT = _binary("RightShift", INT_DTYPES, "x >> y, arithmetic (floor(x / 2**y)); a shift of the "
                      "bit width or more, or negative, gives 0 (-1 for negative x)",
                      differentiable=False)


# -- Cast, Where, Clip ---------------------------------------------------------------------
def cast_target(source: DType, to: DType, op: str | None = None) -> DType:
    """`to`, a dtype `source` may be cast to; DTypeError naming `op` for complex to real (it
    would drop the imaginary part: the Array API standard forbids it)."""
    if source.is_complex and not (to.is_complex or to.is_bool):
        raise DTypeError(f"{op_prefix(op)}cannot cast {source.name} to {to.name}: it would drop the "
                         "imaginary part (the Array API standard forbids it); take tp.real(x) or "
                         "tp.abs(x) first.")
    return to


def _cast_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(infos[0].shape, cast_target(infos[0].dtype, attrs["dtype"]))]


CAST = declare_spec(KernelSpec(
    name="Cast", inputs=("x",), infer=_cast_rule,
    attrs=(AttrSpec("dtype", validate=as_dtype_attr, doc="the target dtype"),),
    doc="x converted to `dtype` (float to int truncates toward zero; to bool is x != 0; integers "
        "wrap around; a float out of an integer dtype's range and complex to real are refused or "
        "unspecified, as in the standard)",
))


COPY = _unary("Copy", ALL_DTYPES, "x in a buffer of its own (tp.asarray(x, copy=True)): the same "
              "values, never the input's memory")


def _where_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    shape = broadcast_shapes(*(i.shape for i in infos))
    return [TensorInfo(shape, infos[1].dtype)]


WHERE = declare_spec(KernelSpec(
    name="Where", inputs=("condition", "x", "y"), infer=_where_rule,
    input_dtypes={"condition": BOOL}, same_dtype=("x", "y"),
    doc="x where condition else y, broadcasting all three",
))


def _clip_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    lo, hi = attrs["min"], attrs["max"]
    if lo is not None and hi is not None and lo > hi:
        raise ShapeError(f"min ({lo}) is greater than max ({hi})")
    return [infos[0]]


CLIP = declare_spec(KernelSpec(
    name="Clip", inputs=("x",), infer=_clip_rule, input_dtypes={"x": NUMERIC_DTYPES},
    attrs=(AttrSpec("min", None, as_float_or_none, "lower bound or None"),
           AttrSpec("max", None, as_float_or_none, "upper bound or None")),
    doc="x limited to [min, max]; gradient passes where min <= x <= max",
))
