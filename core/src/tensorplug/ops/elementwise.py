"""Elementwise ops (Python Array API names): arithmetic, comparisons, logic, unary math,
where, clip. Binary ops promote their arguments (Python scalars are weak) and broadcast;
float-only math promotes integer and bool inputs to the default float dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..dtypes import bool_
from ..errors import DTypeError
from ..tensor import Tensor
from ._convert import asarray, astype, caller, convert_pair, to_float

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "pow", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not",
    "negative", "positive", "abs", "sign", "square", "floor", "ceil", "round",
    "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tanh", "sigmoid",
    "where", "clip", "astype", "reciprocal", "tan", "log2", "log10", "logaddexp",
]

F = TypeVar("F", bound=Callable[..., Any])


def _named(op: F, name: str) -> F:
    """`op`, a function made from a table, named `name` (its code too, for tracebacks and the
    ops tp.profile reports)."""
    op.__name__ = op.__qualname__ = name
    op.__code__ = op.__code__.replace(co_name=name)
    return op


def _no_bool(name: str) -> DTypeError:
    return DTypeError(f"{name} does not accept bool tensors; cast first, e.g. x.astype(tp.int64).")


def _numeric(name: str, kernel: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x: Any, y: Any) -> Tensor:
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
            x, y = convert_pair(x, y)
        if x._dtype is bool_:
            raise _no_bool(name)
        return binary(x, y)

    return _named(op, name)


def _compare(name: str, kernel: str, allow_bool: bool) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x: Any, y: Any) -> Tensor:
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
            x, y = convert_pair(x, y)
        if x._dtype is bool_ and not allow_bool:
            raise _no_bool(name)
        return binary(x, y)

    return _named(op, name)


def _logical(name: str, kernel: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x: Any, y: Any) -> Tensor:
        return binary(astype(x, bool_), astype(y, bool_))

    return _named(op, name)


def _float_unary(name: str, kernel: str) -> Callable[[Any], Tensor]:
    unary = caller(kernel).unary

    def op(x: Any) -> Tensor:
        if not (isinstance(x, Tensor) and x._dtype.kind == "float"):
            x = to_float(x)
        return unary(x)

    return _named(op, name)


def _numeric_unary(name: str, kernel: str) -> Callable[[Any], Tensor]:
    unary = caller(kernel).unary

    def op(x: Any) -> Tensor:
        if not isinstance(x, Tensor):
            x = asarray(x)
        if x._dtype is bool_:
            raise _no_bool(name)
        return unary(x)

    return _named(op, name)


def _rounding(name: str, kernel: str) -> Callable[[Any], Tensor]:
    unary = caller(kernel).unary

    def op(x: Any) -> Tensor:
        if not isinstance(x, Tensor):
            x = asarray(x)
        if x._dtype.kind != "float":
            if x._dtype is bool_:
                raise DTypeError(f"{name} does not accept bool tensors.")
            return x  # integers are already whole
        return unary(x)

    return _named(op, name)


add = _numeric("add", "Add")
subtract = _numeric("subtract", "Subtract")
multiply = _numeric("multiply", "Multiply")
floor_divide = _numeric("floor_divide", "FloorDivide")
floor_divide.__doc__ = ("floor(x / y), elementwise; an integer divided by 0 gives 0 on every backend "
                        "(the Array API leaves it unspecified), a float one +-inf or nan.")
maximum = _numeric("maximum", "Maximum")
minimum = _numeric("minimum", "Minimum")
equal = _compare("equal", "Equal", allow_bool=True)
not_equal = _compare("not_equal", "NotEqual", allow_bool=True)
less = _compare("less", "Less", allow_bool=False)
less_equal = _compare("less_equal", "LessEqual", allow_bool=False)
greater = _compare("greater", "Greater", allow_bool=False)
greater_equal = _compare("greater_equal", "GreaterEqual", allow_bool=False)
logical_and = _logical("logical_and", "LogicalAnd")
logical_or = _logical("logical_or", "LogicalOr")
negative = _numeric_unary("negative", "Negative")
abs = _numeric_unary("abs", "Abs")  # noqa: A001 - the Array API name
sign = _numeric_unary("sign", "Sign")
square = _numeric_unary("square", "Square")
floor = _rounding("floor", "Floor")
ceil = _rounding("ceil", "Ceil")
round = _rounding("round", "Round")  # noqa: A001
exp = _float_unary("exp", "Exp")
log = _float_unary("log", "Log")
log1p = _float_unary("log1p", "Log1p")
expm1 = _float_unary("expm1", "Expm1")
sqrt = _float_unary("sqrt", "Sqrt")
sin = _float_unary("sin", "Sin")
cos = _float_unary("cos", "Cos")
tanh = _float_unary("tanh", "Tanh")
sigmoid = _float_unary("sigmoid", "Sigmoid")

_DIVIDE = caller("Divide")
_POW = caller("Pow")
_LOGICAL_NOT = caller("LogicalNot")
_WHERE = caller("Where")
_CLIP = caller("Clip")


def divide(x: Any, y: Any) -> Tensor:
    """x / y; integer and bool inputs give the default float dtype."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
        x, y = convert_pair(x, y)
    if x._dtype.kind != "float":
        x, y = to_float(x), to_float(y)
    return _DIVIDE.binary(x, y)


def pow(x: Any, y: Any) -> Tensor:  # noqa: A001
    """x ** y, elementwise with broadcasting."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype):
        x, y = convert_pair(x, y)
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
    x, y = convert_pair(x, y)
    return _WHERE((astype(condition, bool_), x, y))


def clip(x: Any, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """x limited to [min, max]; bounds may be scalars or tensors (None: unbounded)."""
    x = asarray(x)
    scalar = (bool, int, float, type(None))
    if isinstance(min, scalar) and isinstance(max, scalar):
        if x._dtype is bool_:
            raise DTypeError("clip does not accept bool tensors.")
        return _CLIP((x,), {"min": None if min is None else float(min),
                            "max": None if max is None else float(max)})
    out = x
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


def reciprocal(x: Any) -> Tensor:
    """1 / x, elementwise; integer and bool inputs give the default float dtype."""
    return divide(1.0, to_float(x))


def tan(x: Any) -> Tensor:
    """Tangent, elementwise (as sin(x) / cos(x)); integer and bool inputs give the default float dtype."""
    x = to_float(x)
    return divide(sin(x), cos(x))


def log2(x: Any) -> Tensor:
    """Base-2 logarithm, elementwise; integer and bool inputs give the default float dtype."""
    x = to_float(x)
    return divide(log(x), log(asarray(2.0, dtype=x.dtype)))


def log10(x: Any) -> Tensor:
    """Base-10 logarithm, elementwise; integer and bool inputs give the default float dtype."""
    x = to_float(x)
    return divide(log(x), log(asarray(10.0, dtype=x.dtype)))


def logaddexp(x: Any, y: Any) -> Tensor:
    """log(exp(x) + exp(y)), computed stably."""
    x, y = convert_pair(to_float(x), to_float(y))
    m = maximum(x, y)
    return add(m, log1p(exp(negative(abs(subtract(x, y))))))
