"""Bitwise ops (Python Array API names): and, or, xor and invert of integer and bool tensors
(a bool is one bit, so on bools they are the logical ops), and the shifts of integers. Binary
ops promote their arguments (Python scalars are weak) and broadcast; floats are a DTypeError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import DTypeError
from tensorplug.families._common.convert import asarray, caller, convert_pair
from tensorplug.families.elementwise.ops import _named

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift",
           "bitwise_right_shift"]


def _refuse(name: str, dtype: Any, takes: str) -> DTypeError:
    return DTypeError(f"{name} takes {takes} tensors, got {dtype.name}; cast first, e.g. "
                      "x.astype(tp.int64).")


def _logic(name: str, kernel: str, doc: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x1: Any, x2: Any, /) -> Tensor:
        if not (isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1._dtype is x2._dtype):
            x1, x2 = convert_pair(x1, x2, name)
        if x1._dtype.is_inexact:
            raise _refuse(name, x1._dtype, "integer or bool")
        return binary(x1, x2)

    return _named(op, name, doc)


def _shift(name: str, kernel: str, doc: str) -> Callable[[Any, Any], Tensor]:
    binary = caller(kernel).binary

    def op(x1: Any, x2: Any, /) -> Tensor:
        if isinstance(x2, int):  # the Array API leaves a negative shift undefined: refused
            valid.integer(int(x2), name, "x2 (the shift)", minimum=0)
        if not (isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1._dtype is x2._dtype):
            x1, x2 = convert_pair(x1, x2, name)
        if not x1._dtype.is_integer:
            raise _refuse(name, x1._dtype, "integer")
        return binary(x1, x2)

    return _named(op, name, doc)


_BINARY = ("elementwise, with broadcasting; the dtypes promote by the Array API table (Python "
           "scalars are weak).")
_SHIFTS = ("A shift of the bit width or more gives what numpy gives, on every backend; a "
           "negative Python scalar shift is a ShapeError (negative shifts in tensors: as numpy).")

bitwise_and = _logic("bitwise_and", "BitwiseAnd",
                     f"x1 & x2 of integer or bool tensors (logical and for bools), {_BINARY}")
bitwise_or = _logic("bitwise_or", "BitwiseOr",
                    f"x1 | x2 of integer or bool tensors (logical or for bools), {_BINARY}")
bitwise_xor = _logic("bitwise_xor", "BitwiseXor",
                     f"x1 ^ x2 of integer or bool tensors (logical xor for bools), {_BINARY}")
bitwise_left_shift = _shift("bitwise_left_shift", "LeftShift",
                            f"x1 << x2 of integer tensors, {_BINARY} {_SHIFTS}")
bitwise_right_shift = _shift("bitwise_right_shift", "RightShift",
                             f"x1 >> x2 of integer tensors, arithmetic (floor(x1 / 2 ** x2)), {_BINARY} "
                             f"{_SHIFTS}")

_INVERT = caller("BitwiseInvert")


def bitwise_invert(x: Any, /) -> Tensor:
    """~x: every bit of an integer tensor flipped (not x for a bool tensor), of x's dtype."""
    if not isinstance(x, Tensor):
        x = asarray(x)
    if x._dtype.is_inexact:
        raise _refuse("bitwise_invert", x._dtype, "integer or bool")
    return _INVERT.unary(x)

