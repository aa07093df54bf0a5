"""Elementwise ops (Python Array API names): arithmetic, comparisons, logic, unary math,
tests (isnan, ...), real, imag, conj, where, clip (the bitwise ones are in ``bitwise``). Binary
ops promote their arguments (Python scalars are weak) and broadcast; floating-point math
promotes integer and bool inputs to the default float dtype and keeps complex ones complex."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, bool_
from tensorplug.errors import DTypeError
from tensorplug.families._common.convert import asarray, astype, caller, convert_pair, to_float
from tensorplug.families.creation.ops import zeros_like
from tensorplug.kernels.shape_rules import broadcast_shapes

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "pow", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "remainder", "atan2", "copysign", "hypot", "nextafter",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "negative", "positive", "abs", "sign", "square", "floor", "ceil", "round", "trunc",
    "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tanh", "sigmoid", "erfinv",
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh",
    "isnan", "isinf", "isfinite", "signbit",
    "where", "clip", "astype", "reciprocal", "tan", "log2", "log10", "logaddexp",
    "real", "imag", "conj",
]

F = TypeVar("F", bound=Callable[..., Any])


def _named(op: F, name: str, doc: str) -> F:
    """`op`, a function made from a table, named `name` (its code too, for tracebacks and the
    ops tp.profile reports), with docstring `doc`."""
    op.__name__ = op.__qualname__ = name
    op.__code__ = op.__code__.replace(co_name=name)
    op.__doc__ = doc
    return op


_BINARY = ("elementwise, with broadcasting; the dtypes promote by the Array API table (Python "
           "scalars are weak).")
_BOOL = "DTypeError for bool tensors."
_FLOAT = ("elementwise; integer and bool inputs give the default float dtype (float32), complex "
          "ones stay complex.")
_REAL = "elementwise; integer and bool inputs give the default float dtype (float32)."
_LOGICAL = "elementwise with broadcasting; both are first cast to bool (nonzero is True)."


def _no_bool(name: str) -> DTypeError:
    return DTypeError(f"{name} does not accept bool tensors; cast first, e.g. x.astype(tp.int64).")


def _no_complex(name: str, dtype: Any) -> DTypeError:
    return DTypeError(f"{name} takes real numbers, got {dtype.name}; take tp.real(x), tp.imag(x) or "
                      "tp.abs(x) first.")


def _numeric(name: str, kernel: str, doc: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x: Any, y: Any, /) -> Tensor:
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
            x, y = convert_pair(x, y, name)
        if x._dtype is bool_:
            raise _no_bool(name)
        return binary(x, y)

    return _named(op, name, doc)


def _compare(name: str, kernel: str, allow_bool: bool, doc: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x: Any, y: Any, /) -> Tensor:
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
            x, y = convert_pair(x, y, name)
        if x._dtype is bool_ and not allow_bool:
            raise _no_bool(name)
        return binary(x, y)

    return _named(op, name, doc)


def _logical(name: str, kernel: str, doc: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x: Any, y: Any, /) -> Tensor:
        return binary(astype(x, bool_), astype(y, bool_))

    return _named(op, name, doc)


def _float_unary(name: str, kernel: str, doc: str, real_only: bool = False) -> Callable[[Any], Tensor]:
    unary = caller(kernel).unary

    def op(x: Any, /) -> Tensor:
        if not (isinstance(x, Tensor) and x._dtype.kind == "float"):
            x = to_float(x)
            if real_only and x._dtype.is_complex:
                raise _no_complex(name, x._dtype)
        return unary(x)

    return _named(op, name, doc)


def _float_binary(name: str, kernel: str, doc: str) -> Callable[[Any, Any], Tensor]:
    """A real floating-point binary op (complex inputs are a DTypeError)."""
    binary = caller(kernel).binary

    def op(x: Any, y: Any, /) -> Tensor:
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
            x, y = convert_pair(x, y, name)
        if x._dtype.kind != "float":
            if x._dtype.is_complex:
                raise _no_complex(name, x._dtype)
            x, y = to_float(x), to_float(y)
        return binary(x, y)

    return _named(op, name, doc)


def _numeric_unary(name: str, kernel: str, doc: str) -> Callable[[Any], Tensor]:
    unary = caller(kernel).unary

    def op(x: Any, /) -> Tensor:
        if not isinstance(x, Tensor):
            x = asarray(x)
        if x._dtype is bool_:
            raise _no_bool(name)
        return unary(x)

    return _named(op, name, doc)


def _rounding(name: str, kernel: str, doc: str, complex_ok: bool = False) -> Callable[[Any], Tensor]:
    unary = caller(kernel).unary

    def op(x: Any, /) -> Tensor:
        if not isinstance(x, Tensor):
            x = asarray(x)
        if x._dtype.kind != "float":
            if x._dtype.is_complex:
                if complex_ok:
                    return unary(x)
                raise _no_complex(name, x._dtype)
            if x._dtype is bool_:
                raise DTypeError(f"{name} does not accept bool tensors.")
            return x  # integers are already whole
        return unary(x)

    return _named(op, name, doc)


add = _numeric("add", "Add",
               f"x + y, {_BINARY} {_BOOL}")
subtract = _numeric("subtract", "Subtract",
                    f"x - y, {_BINARY} {_BOOL}")
multiply = _numeric("multiply", "Multiply",
                    f"x * y, {_BINARY} {_BOOL}")
floor_divide = _numeric("floor_divide", "FloorDivide",
                        "floor(x / y), elementwise; an integer divided by 0 gives 0 on every backend "
                        "(the Array API leaves it unspecified), a float one +-inf or nan.")
maximum = _numeric("maximum", "Maximum",
                   f"The larger of x and y, {_BINARY} {_BOOL}")
minimum = _numeric("minimum", "Minimum",
                   f"The smaller of x and y, {_BINARY} {_BOOL}")
equal = _compare("equal", "Equal", allow_bool=True,
                 doc=f"x == y as a bool tensor, {_BINARY}")
not_equal = _compare("not_equal", "NotEqual", allow_bool=True,
                     doc=f"x != y as a bool tensor, {_BINARY}")
less = _compare("less", "Less", allow_bool=False,
                doc=f"x < y as a bool tensor, {_BINARY} {_BOOL}")
less_equal = _compare("less_equal", "LessEqual", allow_bool=False,
                      doc=f"x <= y as a bool tensor, {_BINARY} {_BOOL}")
greater = _compare("greater", "Greater", allow_bool=False,
                   doc=f"x > y as a bool tensor, {_BINARY} {_BOOL}")
greater_equal = _compare("greater_equal", "GreaterEqual", allow_bool=False,
                         doc=f"x >= y as a bool tensor, {_BINARY} {_BOOL}")
remainder = _numeric("remainder", "Mod",
                     f"x - y * floor(x / y), with the sign of y as Python's %, {_BINARY} An integer "
                     f"modulo 0 gives 0 on every backend (the Array API leaves it unspecified), a float "
                     f"one nan. {_BOOL}")
atan2 = _float_binary("atan2", "Atan2",
                      f"The angle in radians, in [-pi, pi], of the point (y, x) (x is the "
                      f"y-coordinate), {_BINARY} Integer and bool inputs give the default float dtype.")
copysign = _float_binary("copysign", "Copysign",
                         f"|x| with the sign bit of y (-0.0 and -nan count as negative), {_BINARY} "
                         f"Integer and bool inputs give the default float dtype.")
hypot = _float_binary("hypot", "Hypot",
                      f"sqrt(x ** 2 + y ** 2) without overflow or underflow, {_BINARY} Integer and bool "
                      f"inputs give the default float dtype.")
nextafter = _float_binary("nextafter", "Nextafter",
                          f"The next floating-point value after x in the direction of y, {_BINARY} "
                          f"Integer and bool inputs give the default float dtype.")
logical_and = _logical("logical_and", "LogicalAnd", f"x and y, {_LOGICAL}")
logical_or = _logical("logical_or", "LogicalOr", f"x or y, {_LOGICAL}")
logical_xor = _logical("logical_xor", "LogicalXor", f"x != y for truth values, {_LOGICAL}")
negative = _numeric_unary("negative", "Negative",
                          f"-x, elementwise, of x's dtype. {_BOOL}")
abs = _numeric_unary("abs", "Abs",  # noqa: A001 - the Array API name
                     f"|x|, elementwise, of x's dtype (of a complex x: its modulus, in the real dtype of "
                     f"its precision). {_BOOL}")
sign = _numeric_unary("sign", "Sign",
                      f"-1, 0 or 1 by the sign of x (x / |x| for complex x, 0 at 0), elementwise, of x's "
                      f"dtype. {_BOOL}")
square = _numeric_unary("square", "Square",
                        f"x * x, elementwise, of x's dtype. {_BOOL}")
floor = _rounding("floor", "Floor",
                  f"The largest whole number <= x, elementwise, of x's dtype (integers unchanged). {_BOOL}")
ceil = _rounding("ceil", "Ceil",
                 f"The smallest whole number >= x, elementwise, of x's dtype (integers unchanged). {_BOOL}")
round = _rounding("round", "Round",  # noqa: A001
                  f"x rounded to the nearest whole number, halves to even, of x's dtype (integers "
                  f"unchanged; complex: each part). {_BOOL}", complex_ok=True)
trunc = _rounding("trunc", "Trunc",
                  f"x rounded toward zero, elementwise, of x's dtype (integers unchanged). {_BOOL}")
isnan = _numeric_unary("isnan", "IsNan",
                       f"Whether x is NaN, elementwise, as a bool tensor (never for integers). {_BOOL}")
isinf = _numeric_unary("isinf", "IsInf",
                       f"Whether x is +inf or -inf, elementwise, as a bool tensor (never for integers). "
                       f"{_BOOL}")
isfinite = _numeric_unary("isfinite", "IsFinite",
                          f"Whether x is neither infinite nor NaN, elementwise, as a bool tensor (always "
                          f"for integers). {_BOOL}")
signbit = _float_unary("signbit", "Signbit",
                       f"Whether x's sign bit is set (x < 0, -0.0, -inf, -nan) as a bool tensor, {_REAL}",
                       real_only=True)
exp = _float_unary("exp", "Exp",
                   f"e ** x, {_FLOAT}")
log = _float_unary("log", "Log",
                   f"The natural logarithm, {_FLOAT} log(0) is -inf and log(-1) is nan.")
log1p = _float_unary("log1p", "Log1p",
                     f"log(1 + x), accurate near 0, {_FLOAT}")
expm1 = _float_unary("expm1", "Expm1",
                     f"exp(x) - 1, accurate near 0, {_FLOAT}")
erfinv = _float_unary("erfinv", "Erfinv", "The inverse error function of x in [-1, 1] (+-inf at +-1, nan "
                      f"beyond), as jax.lax.erf_inv and torch.erfinv, {_REAL}", real_only=True)
sqrt = _float_unary("sqrt", "Sqrt",
                    f"The square root, {_FLOAT} sqrt(-1) is nan.")
sin = _float_unary("sin", "Sin",
                   f"Sine (radians), {_FLOAT}")
cos = _float_unary("cos", "Cos",
                   f"Cosine (radians), {_FLOAT}")
tan = _float_unary("tan", "Tan",
                   f"Tangent (radians), {_FLOAT}")
tanh = _float_unary("tanh", "Tanh",
                    f"Hyperbolic tangent, {_FLOAT}")
sigmoid = _float_unary("sigmoid", "Sigmoid",
                       f"1 / (1 + exp(-x)), {_REAL}", real_only=True)
acos = _float_unary("acos", "Acos",
                    f"Inverse cosine in radians, in [0, pi], {_FLOAT} nan outside [-1, 1].")
acosh = _float_unary("acosh", "Acosh",
                     f"Inverse hyperbolic cosine, {_FLOAT} nan below 1.")
asin = _float_unary("asin", "Asin",
                    f"Inverse sine in radians, in [-pi/2, pi/2], {_FLOAT} nan outside [-1, 1].")
asinh = _float_unary("asinh", "Asinh",
                     f"Inverse hyperbolic sine, {_FLOAT}")
atan = _float_unary("atan", "Atan",
                    f"Inverse tangent in radians, in [-pi/2, pi/2], {_FLOAT}")
atanh = _float_unary("atanh", "Atanh",
                     f"Inverse hyperbolic tangent, {_FLOAT} +-inf at +-1, nan beyond.")
cosh = _float_unary("cosh", "Cosh",
                    f"Hyperbolic cosine, {_FLOAT}")
sinh = _float_unary("sinh", "Sinh",
                    f"Hyperbolic sine, {_FLOAT}")

_DIVIDE = caller("Divide")
_POW = caller("Pow")
_LOGICAL_NOT = caller("LogicalNot")
_WHERE = caller("Where")
_CLIP = caller("Clip")


def divide(x: Any, y: Any) -> Tensor:
    """x / y; integer and bool inputs give the default float dtype."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
        x, y = convert_pair(x, y, "divide")
    if not x._dtype.is_inexact:
        x, y = to_float(x), to_float(y)
    return _DIVIDE.binary(x, y)


def pow(x: Any, y: Any) -> Tensor:  # noqa: A001
    """x ** y, elementwise with broadcasting."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
        x, y = convert_pair(x, y, "pow")
    if x._dtype is bool_:
        raise _no_bool("pow")
    return _POW.binary(x, y)


def logical_not(x: Any) -> Tensor:
    """not x, elementwise; any input is first cast to bool (nonzero is True)."""
    return _LOGICAL_NOT.unary(astype(x, bool_))


def positive(x: Any) -> Tensor:
    """+x: `x` as a tensor, unchanged."""
    return asarray(x)


def where(condition: Any, x: Any, y: Any) -> Tensor:
    """Elements of x where condition holds, else of y (all three broadcast)."""
    x, y = convert_pair(x, y, "where")
    if not (isinstance(condition, Tensor) and condition._dtype is bool_):
        condition = astype(condition, bool_)
    return _WHERE((condition, x, y))


def _clip_bound(bound: bool | int | float | None, dtype: DType, name: str) -> int | float | None:
    """A scalar bound as Clip takes it: an int bound of integers stays an int (as a float, one
    past 2**53 would move to a neighbour)."""
    if bound is None:
        return None
    bound = valid.number(bound, "clip", name)  # (an int past any float refused)
    return int(bound) if dtype.is_integer and isinstance(bound, int) else float(bound)


def clip(x: Any, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """x limited to [min, max]; bounds may be scalars or tensors (None: unbounded)."""
    x = asarray(x)
    scalar = (bool, int, float, type(None))
    if isinstance(min, scalar) and isinstance(max, scalar):
        if x._dtype is bool_:
            raise DTypeError("clip does not accept bool tensors.")
        return _CLIP((x,), {"min": _clip_bound(min, x._dtype, "min"),
                            "max": _clip_bound(max, x._dtype, "max")})
    bounds = [b for b in (min, max) if b is not None and not isinstance(b, scalar)]
    broadcast_shapes(x.shape, *(asarray(b).shape for b in bounds), op="clip")  # (named clip's)
    out = x
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


def reciprocal(x: Any) -> Tensor:
    """1 / x, elementwise; integer and bool inputs give the default float dtype."""
    return divide(1.0, to_float(x))


def log2(x: Any) -> Tensor:
    """Base-2 logarithm, elementwise; integer and bool inputs give the default float dtype."""
    x = to_float(x)
    return divide(log(x), log(asarray(2.0, dtype=x.dtype)))


def log10(x: Any) -> Tensor:
    """Base-10 logarithm, elementwise; integer and bool inputs give the default float dtype."""
    x = to_float(x)
    return divide(log(x), log(asarray(10.0, dtype=x.dtype)))


def logaddexp(x: Any, y: Any) -> Tensor:
    """log(exp(x) + exp(y)), computed stably; real inputs only (complex is a DTypeError)."""
    x, y = convert_pair(to_float(x), to_float(y), "logaddexp")
    if x._dtype.is_complex:
        raise _no_complex("logaddexp", x._dtype)
    m = maximum(x, y)
    return add(m, log1p(exp(negative(abs(subtract(x, y))))))


_REAL_PART = caller("Real")
_IMAG_PART = caller("Imag")
_CONJ = caller("Conj")


def _numeric_tensor(x: Any, name: str) -> Tensor:
    x = asarray(x)
    if x._dtype is bool_:
        raise _no_bool(name)
    return x


def real(x: Any, /) -> Tensor:
    """The real part of each element, in the real floating dtype of x's precision (complex64 ->
    float32); a real tensor is returned unchanged. DTypeError for bool tensors."""
    x = _numeric_tensor(x, "real")
    return _REAL_PART.unary(x) if x._dtype.is_complex else x


def imag(x: Any, /) -> Tensor:
    """The imaginary part of each element, in the real floating dtype of x's precision
    (complex64 -> float32); zeros of x's dtype for a real tensor. DTypeError for bool tensors."""
    x = _numeric_tensor(x, "imag")
    if x._dtype.is_complex:
        return _IMAG_PART.unary(x)
    return zeros_like(x)


def conj(x: Any, /) -> Tensor:
    """The complex conjugate of each element (the imaginary part negated), of x's dtype; a
    real tensor is returned unchanged. DTypeError for bool tensors."""
    x = _numeric_tensor(x, "conj")
    return _CONJ.unary(x) if x._dtype.is_complex else x
