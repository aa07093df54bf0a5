"""The contracts of the elementwise ops that ``tensorplug.ops.elementwise`` makes from one
factory per family (``add = _numeric("add", "Add")``), which have no ``def`` to hold a
docstring. ``document_ops`` gives each its line here, once, at ``import tensorplug``."""

from __future__ import annotations

from types import ModuleType

_BINARY = ("elementwise, with broadcasting; the dtypes promote by the Array API table (Python "
           "scalars are weak).")
_BOOL = "DTypeError for bool tensors."
_FLOAT = "elementwise; integer and bool inputs give the default float dtype (float32)."

OP_DOCS = {
    "add": f"x + y, {_BINARY} {_BOOL}",
    "subtract": f"x - y, {_BINARY} {_BOOL}",
    "multiply": f"x * y, {_BINARY} {_BOOL}",
    "floor_divide": f"x // y (rounded toward negative infinity), {_BINARY} {_BOOL}",
    "maximum": f"The larger of x and y, {_BINARY} {_BOOL}",
    "minimum": f"The smaller of x and y, {_BINARY} {_BOOL}",
    "equal": f"x == y as a bool tensor, {_BINARY}",
    "not_equal": f"x != y as a bool tensor, {_BINARY}",
    "less": f"x < y as a bool tensor, {_BINARY} {_BOOL}",
    "less_equal": f"x <= y as a bool tensor, {_BINARY} {_BOOL}",
    "greater": f"x > y as a bool tensor, {_BINARY} {_BOOL}",
    "greater_equal": f"x >= y as a bool tensor, {_BINARY} {_BOOL}",
    "logical_and": "x and y, elementwise with broadcasting; both are first cast to bool (nonzero is True).",
    "logical_or": "x or y, elementwise with broadcasting; both are first cast to bool (nonzero is True).",
    "negative": f"-x, elementwise, of x's dtype. {_BOOL}",
    "abs": f"|x|, elementwise, of x's dtype. {_BOOL}",
    "sign": f"-1, 0 or 1 by the sign of x, elementwise, of x's dtype. {_BOOL}",
    "square": f"x * x, elementwise, of x's dtype. {_BOOL}",
    "floor": f"The largest whole number <= x, elementwise, of x's dtype (integers unchanged). {_BOOL}",
    "ceil": f"The smallest whole number >= x, elementwise, of x's dtype (integers unchanged). {_BOOL}",
    "round": f"x rounded to the nearest whole number, halves to even, of x's dtype (integers "
             f"unchanged). {_BOOL}",
    "exp": f"e ** x, {_FLOAT}",
    "log": f"The natural logarithm, {_FLOAT} log(0) is -inf and log(-1) is nan.",
    "log1p": f"log(1 + x), accurate near 0, {_FLOAT}",
    "expm1": f"exp(x) - 1, accurate near 0, {_FLOAT}",
    "sqrt": f"The square root, {_FLOAT} sqrt(-1) is nan.",
    "sin": f"Sine (radians), {_FLOAT}",
    "cos": f"Cosine (radians), {_FLOAT}",
    "tanh": f"Hyperbolic tangent, {_FLOAT}",
    "sigmoid": f"1 / (1 + exp(-x)), {_FLOAT}",
}


def document_ops(namespace: ModuleType) -> None:
    """Give each op of OP_DOCS in `namespace` its docstring, unless it has one already."""
    for name, doc in OP_DOCS.items():
        op = getattr(namespace, name)
        if not op.__doc__:
            op.__doc__ = doc
