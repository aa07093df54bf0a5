"""The shared validators of public arguments: each takes the value, the op asking and the
argument's name, and returns the normalized value or raises a tensorplug error naming the op,
the argument and what it accepts. Ops call them on their slow path (argument conversion), never
on the dispatcher's fast path.

Sizes: ``checked_size`` holds a new tensor's shape to its backend's limits
(``Backend.max_elements``, ``Backend.max_ndim``) before anything is allocated.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, as_dtype
from tensorplug.errors import ArgumentError, DTypeError, ShapeError

_FLOAT_MAX = float(np.finfo(np.float64).max)

__all__ = ["backend_name", "function", "flag", "integer", "size", "shape", "number", "dtype", "checked_size",
           "op_prefix", "shown"]


def op_prefix(op: str | None) -> str:
    """'sum: ' for messages raised on behalf of op 'sum'; '' for a kernel spec's own rule (the
    engine then names the kernel, its backend and its inputs in front of the message)."""
    return f"{op}: " if op else ""


def shown(value: Any) -> str:
    """`value` for a message: arrays and tensors by type, shape and dtype (not their values)."""
    if not isinstance(value, type) and hasattr(value, "shape") and hasattr(value, "dtype"):
        try:
            dtype = getattr(value.dtype, "name", value.dtype)
            return f"a {type(value).__name__} of shape {tuple(value.shape)} and dtype {dtype}"
        except Exception:  # (an object whose shape is no sequence): its repr below
            pass
    if isinstance(value, int) and not isinstance(value, bool):
        return shown_int(value)  # (repr refuses ints of more than 4,300 digits)
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def shown_int(value: int) -> str:
    """An int for a message: its digits, or its size for one too long to print (Python refuses
    to print ints of more than 4,300 digits)."""
    if abs(value) < 10**30:
        return str(value)
    return f"about {'-' if value < 0 else ''}10**{int(math.log10(abs(value)))}"


def shown_shape(dims: tuple[int, ...] | list[int]) -> str:
    """A shape for a message, as a tuple prints, its sizes through ``shown_int``."""
    return "(" + ", ".join(shown_int(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def backend_name(value: Any, op: str, arg: str = "backend") -> str:
    """A backend's name: a str, e.g. 'numpy'."""
    if not isinstance(value, str):
        raise ArgumentError(f"{op}: {arg} must be a backend name (a str such as 'numpy'), got "
                            f"{shown(value)}; tp.list_backends() lists the installed ones.")
    return value


def function(value: Any, op: str, arg: str = "f") -> Callable[..., Any]:
    """A callable."""
    if not callable(value):
        raise ArgumentError(f"{op}: {arg} must be a function, got {shown(value)}.")
    return value


def flag(value: Any, op: str, arg: str) -> bool:
    """A bool (numpy's bool_ and Python ints too, by their truth)."""
    if isinstance(value, (bool, int, np.bool_)):
        return bool(value)
    raise ArgumentError(f"{op}: {arg} must be True or False, got {shown(value)}.")


def integer(value: Any, op: str, arg: str, *, minimum: int | None = None) -> int:
    """A Python int from an int, a numpy integer or a 0-d integer tensor (not a bool or a
    float); ShapeError below `minimum`."""
    if type(value) is not int:
        if isinstance(value, (bool, np.bool_, float, np.floating)) or not hasattr(value, "__index__"):
            raise ArgumentError(f"{op}: {arg} must be an int, got {shown(value)}.")
        try:
            value = operator.index(value)
        except (TypeError, ValueError):
            raise ArgumentError(f"{op}: {arg} must be an int (or a 0-d integer tensor), got "
                                f"{shown(value)}.") from None
    if minimum is not None and value < minimum:
        raise ShapeError(f"{op}: {arg} must be >= {minimum}, got {value}.")
    return value


def size(value: Any, op: str, arg: str) -> int:
    """A size: an int >= 0."""
    return integer(value, op, arg, minimum=0)


def shape(value: Any, op: str, arg: str = "shape") -> tuple[int, ...]:
    """A shape: an int or a sequence of ints, each >= 0."""
    if isinstance(value, (str, bytes)) or not (hasattr(value, "__index__") or hasattr(value, "__iter__")):
        raise ArgumentError(f"{op}: {arg} must be an int or a sequence of ints, got {shown(value)}.")
    if hasattr(value, "__index__") and getattr(value, "ndim", 0) == 0:  # an int, a 0-d array or tensor
        return (size(value, op, arg),)
    try:
        dims = tuple(value)
    except TypeError:
        raise ArgumentError(f"{op}: {arg} must be an int or a sequence of ints, "
                            f"got {shown(value)}.") from None
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not hasattr(d, "__index__"):
            raise ArgumentError(f"{op}: {arg} {shown(value)} holds {shown(d)}; each size must be an int.")
    out = tuple(integer(d, op, arg) for d in dims)
    if any(d < 0 for d in out):
        raise ShapeError(f"{op}: {arg} {out} has a negative size; sizes must be >= 0.")
    return out


def number(value: Any, op: str, arg: str) -> bool | int | float:
    """A real Python scalar from a bool, int or float, or a numpy scalar, 0-d array or 0-d
    tensor holding one. An int past the largest float (about 1.8e308) is a ShapeError: no dtype
    holds it, and the ops' float conversions would overflow."""
    if isinstance(value, (bool, int, float)):
        if isinstance(value, int) and not -_FLOAT_MAX <= value <= _FLOAT_MAX:
            raise ShapeError(f"{op}: {arg} is an int of {value.bit_length()} bits, past the largest float "
                             f"(about {_FLOAT_MAX:.1e}) and every dtype's range; pass a smaller number.")
        return value
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        item = value.item()
        if isinstance(item, (bool, int, float)):
            return item
    raise ArgumentError(f"{op}: {arg} must be a real number, got {shown(value)}.")


def scalar(value: Any, op: str, arg: str) -> bool | int | float | complex:
    """A Python number (complex included) from itself, or a numpy scalar, 0-d array or 0-d
    tensor holding one."""
    if isinstance(value, complex):
        return value
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item") and isinstance(value.item(), complex):
        return value.item()
    try:
        return number(value, op, arg)
    except ArgumentError:
        raise ArgumentError(f"{op}: {arg} must be a number, got {shown(value)}.") from None


def dtype(value: Any, op: str, arg: str = "dtype") -> DType:
    """A tensorplug dtype from a dtype, its name, a numpy dtype or a Python type."""
    try:
        return as_dtype(value)
    except DTypeError as exc:
        raise DTypeError(f"{op}: {arg}: {exc}") from None


def checked_size(dims: tuple[int, ...], backend: Any, op: str | None) -> tuple[int, ...]:
    """`dims` if a tensor of that shape fits `backend`'s limits (``max_ndim`` axes,
    ``max_elements`` elements); ShapeError naming `op` and the backend otherwise, before
    anything is allocated."""
    head = op_prefix(op)
    if len(dims) > backend.max_ndim:
        raise ShapeError(f"{head}a tensor of {len(dims)} axes is past backend '{backend.name}''s limit "
                         f"of {backend.max_ndim} axes.")
    count = math.prod(dims)
    if count > backend.max_elements:
        raise ShapeError(f"{head}shape {shown_shape(dims)} has {shown_int(count)} elements, past backend "
                         f"'{backend.name}''s limit of {backend.max_elements}; make the tensor smaller.")
    return dims
