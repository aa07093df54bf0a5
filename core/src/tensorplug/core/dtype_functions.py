"""The Array API standard's data type functions: ``finfo``, ``iinfo``, ``can_cast``,
``isdtype`` and ``result_type`` (of tensors, dtypes and Python scalars), over tensorplug's
dtypes and promotion rules (``tensorplug.dtypes``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.core.records import Record
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, as_dtype, real_of, scalar_dtype
from tensorplug.dtypes import result_type as _promote
from tensorplug.errors import DTypeError

__all__ = ["finfo", "iinfo", "can_cast", "isdtype", "result_type", "FInfo", "IInfo"]


class FInfo(Record):
    """Machine limits of a floating dtype (of a complex dtype's real and imaginary parts)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType

    def __init__(self, bits: int, eps: float, max: float, min: float, smallest_normal: float,
                 dtype: DType) -> None:
        self._set(bits=bits, eps=eps, max=max, min=min, smallest_normal=smallest_normal, dtype=dtype)


class IInfo(Record):
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")
    bits: int
    max: int
    min: int
    dtype: DType

    def __init__(self, bits: int, max: int, min: int, dtype: DType) -> None:
        self._set(bits=bits, max=max, min=min, dtype=dtype)


def _dtype_of(value: Any, fn: str) -> DType:
    if isinstance(value, Tensor):
        return value.dtype
    try:
        return as_dtype(value)
    except DTypeError as exc:
        raise DTypeError(f"{fn}: {exc}") from None


def finfo(type: Any, /) -> FInfo:  # noqa: A002  (the standard's name)
    """Machine limits of a real or complex floating dtype (or a tensor's); for a complex dtype,
    those of its parts, whose dtype it names."""
    dtype = real_of(_dtype_of(type, "finfo"))
    if not dtype.is_floating:
        raise DTypeError(f"finfo: {dtype.name} is not a floating dtype; use tp.iinfo for integers.")
    info = np.finfo(dtype.numpy) if dtype.numpy.kind == "f" else _ml_finfo(dtype.numpy)
    return FInfo(int(info.bits), float(info.eps), float(info.max), float(info.min),
                 float(info.smallest_normal), dtype)


def _ml_finfo(np_dtype: Any) -> Any:
    """finfo of a dtype numpy does not know as floating (bfloat16, from ml_dtypes)."""
    import ml_dtypes

    return ml_dtypes.finfo(np_dtype)


def iinfo(type: Any, /) -> IInfo:  # noqa: A002  (the standard's name)
    """Machine limits of an integer dtype (or a tensor's)."""
    dtype = _dtype_of(type, "iinfo")
    if not dtype.is_integer:
        raise DTypeError(f"iinfo: {dtype.name} is not an integer dtype; use tp.finfo for floating ones.")
    info = np.iinfo(dtype.numpy)
    return IInfo(int(info.bits), int(info.max), int(info.min), dtype)


def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether promotion takes `from_` (a dtype or a tensor's) to `to`: ``result_type(from_,
    to) is to``."""
    source, target = _dtype_of(from_, "can_cast"), _dtype_of(to, "can_cast")
    try:
        return _promote(source, target) is target
    except DTypeError:  # (uint64 with a signed integer: no common dtype)
        return False


_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int",),
    "unsigned integer": ("uint",),
    "integral": ("int", "uint"),
    "real floating": ("float",),
    "complex floating": ("complex",),
    "numeric": ("int", "uint", "float", "complex"),
}


def isdtype(dtype: DType, kind: Any) -> bool:
    """Whether `dtype` is `kind`: a dtype, one of the standard's kind names ('bool', 'signed
    integer', 'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric'),
    or a tuple of those."""
    if not isinstance(dtype, DType):
        raise DTypeError(f"isdtype: dtype must be a tensorplug dtype, got {type(dtype).__name__}; "
                         "pass e.g. tp.float32 or x.dtype.")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype is kind
    if isinstance(kind, str) and kind in _KINDS:
        return dtype.kind in _KINDS[kind]
    raise DTypeError(f"isdtype: kind must be a dtype, one of {sorted(_KINDS)} or a tuple of them, "
                     f"got {kind!r}.")


def result_type(*arrays_and_dtypes: Any) -> DType:
    """The dtype promotion gives tensors, dtypes and Python scalars (weak: they take the
    others' dtype where their kind fits); at least one tensor or dtype is needed."""
    strong = [a for a in arrays_and_dtypes if not isinstance(a, (bool, int, float, complex))]
    scalars = [a for a in arrays_and_dtypes if isinstance(a, (bool, int, float, complex))]
    if not strong:
        raise DTypeError("result_type needs at least one tensor or dtype (Python scalars alone have "
                         "no dtype of their own); pass e.g. tp.result_type(x, 1.0).")
    out = _promote(*(_dtype_of(a, "result_type") for a in strong))
    for s in scalars:
        out = _promote(out, scalar_dtype(s, out))
    return out
