"""tensorplug's dtypes and type promotion (Python Array API standard, plus cross-kind rules).

Within a kind the standard's lattice applies (int32 + int64 -> int64, float32 + float64 ->
float64). Across kinds, which the standard leaves open, tensorplug does what JAX and PyTorch do:
bool < integers < floats, and an integer meeting a float gives that float. Python scalars are
weak: they take the tensor's dtype when their kind fits, else the default dtype of their kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DTypeError

__all__ = [
    "DType",
    "bool_",
    "int32",
    "int64",
    "float32",
    "float64",
    "ALL_DTYPES",
    "default_float",
    "default_int",
    "as_dtype",
    "result_type",
    "scalar_dtype",
    "from_numpy_dtype",
]


class DType:
    """A tensorplug dtype; the members are ``bool_`` (``tp.bool``), ``int32``, ``int64``,
    ``float32`` and ``float64`` (``ALL_DTYPES``), compared by identity.

    ``name`` is the Array API standard's name ('bool', 'int32', ...), which libraries that follow
    the standard share: ``getattr(xp, dtype.name)`` is the library's dtype. ``kind`` is 'bool',
    'int' or 'float'; ``itemsize`` is in bytes; ``numpy`` is the numpy dtype. ``as_dtype`` and
    ``from_numpy_dtype`` map names, numpy dtypes and Python types to members.
    """

    __slots__ = ("name", "kind", "itemsize", "numpy", "_rank")

    def __init__(self, name: str, kind: str, numpy_dtype: Any, rank: int) -> None:
        self.name = name
        self.kind = kind
        self.numpy = np.dtype(numpy_dtype)
        self.itemsize = self.numpy.itemsize
        self._rank = rank

    @property
    def is_floating(self) -> bool:
        """True for float32 and float64."""
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """True for the signed integer dtypes (int32, int64)."""
        return self.kind == "int"

    @property
    def is_bool(self) -> bool:
        """True for bool."""
        return self.kind == "bool"

    def __repr__(self) -> str:
        return f"tp.{self.name}"

    def __reduce__(self) -> str:
        return self.name if self.name != "bool" else "bool_"


bool_ = DType("bool", "bool", np.bool_, 0)
int32 = DType("int32", "int", np.int32, 1)
int64 = DType("int64", "int", np.int64, 2)
float32 = DType("float32", "float", np.float32, 3)
float64 = DType("float64", "float", np.float64, 4)

ALL_DTYPES: tuple[DType, ...] = (bool_, int32, int64, float32, float64)
FLOAT_DTYPES: tuple[DType, ...] = (float32, float64)
INT_DTYPES: tuple[DType, ...] = (int32, int64)
NUMERIC_DTYPES: tuple[DType, ...] = INT_DTYPES + FLOAT_DTYPES

default_float = float32
default_int = int64

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}


def from_numpy_dtype(np_dtype: Any) -> DType:
    """The tensorplug dtype of a numpy dtype; DTypeError for dtypes tensorplug does not support."""
    try:
        return _BY_NUMPY[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except Exception:  # (KeyError; TypeError or ValueError for what is no dtype at all: a tensor)
        try:
            shown = np.dtype(np_dtype).name
        except Exception:
            shown = repr(np_dtype) if len(repr(np_dtype)) <= 60 else f"a {type(np_dtype).__name__}"
        names = ", ".join(d.name for d in ALL_DTYPES)
        raise DTypeError(
            f"dtype {shown} is not supported by tensorplug; supported dtypes are {names}. "
            "Convert the data first, e.g. np.asarray(data, dtype=np.float32)."
        ) from None


def as_dtype(dtype: Any) -> DType:
    """Accept a tensorplug dtype, its name ('float32'), a numpy dtype or a Python type."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str) and dtype in _BY_NAME:
        return _BY_NAME[dtype]
    if dtype is float:
        return default_float
    if dtype is int:
        return default_int
    if dtype is bool:
        return bool_
    return from_numpy_dtype(dtype)


def _promote_pair(a: DType, b: DType) -> DType:
    if a is b:
        return a
    return a if a._rank > b._rank else b


def result_type(*dtypes: DType) -> DType:
    """The promoted dtype of several tensor dtypes (Array API lattice, JAX-like across kinds)."""
    if not dtypes:
        raise DTypeError("result_type needs at least one dtype")
    out = dtypes[0]
    for d in dtypes[1:]:
        out = _promote_pair(out, d)
    return out


def scalar_dtype(value: Any, other: DType | None = None) -> DType:
    """The dtype a Python scalar takes next to a tensor of dtype `other` (weak scalar rules)."""
    if isinstance(value, bool):
        return other if other is not None else bool_
    if isinstance(value, int):
        if other is not None and other.kind != "bool":
            return other
        return default_int
    if isinstance(value, float):
        if other is not None and other.kind == "float":
            return other
        return default_float
    raise DTypeError(
        f"cannot use a {type(value).__name__} as a tensor value; pass a bool, int, float, "
        "a sequence of them, a numpy array or a tensorplug Tensor."
    )
