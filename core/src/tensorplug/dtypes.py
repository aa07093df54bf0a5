"""tensorplug's dtypes and type promotion: the Python Array API standard's dtypes and its
promotion table, plus tensorplug's rules across kinds.

Within a kind the standard's lattice applies (int8 + int32 -> int32, uint8 + int8 -> int16,
float32 + complex64 -> complex64, float64 + complex64 -> complex128). Across kinds, which the
standard leaves open, tensorplug does what JAX and PyTorch do: bool < integers < real floats <
complex, and an integer meeting a float or complex dtype gives that dtype. uint64 with a signed
integer has no integer dtype that holds both: that is a DTypeError, not a silent float.
Python scalars are weak: they take the tensor's dtype when their kind fits, else the default
dtype of their kind.

Beyond the standard, for mixed precision: float16, and bfloat16 (numpy's through the
``ml_dtypes`` package, which the first-party backends install; without it ``tp.bfloat16``
exists but is in no dtype group, and using it raises a DTypeError saying what to install).
They are real floating dtypes; float16 with bfloat16 gives
float32, as in JAX and PyTorch. Linear algebra and FFT kernels do not take them (cast to
float32 first); ``__array_namespace_info__().dtypes()`` lists the standard's dtypes only, as
numpy's does.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from tensorplug.errors import ArgumentError, DTypeError

#: bfloat16's numpy dtype is ml_dtypes' (optional: core's dependencies stay numpy, pluggy,
#: importlib-metadata, optree; the first-party backends install it), imported at the first read
#: of ``bfloat16.numpy``: ~5 ms that ``import tensorplug`` leaves to the first use (issue 37)
_HAS_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None

__all__ = [
    "DType",
    "bool_",
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
    "complex64", "complex128",
    "ALL_DTYPES", "SIGNED_INT_DTYPES", "UNSIGNED_INT_DTYPES", "INT_DTYPES", "FLOAT_DTYPES",
    "COMPLEX_DTYPES", "NUMERIC_DTYPES", "INEXACT_DTYPES", "ALL_NUMERIC_DTYPES", "STANDARD_DTYPES",
    "default_float", "default_int", "default_complex",
    "as_dtype", "result_type", "scalar_dtype", "from_numpy_dtype", "complex_of", "real_of",
    "accumulator_of", "is_floating_numpy", "is_inexact_numpy", "NUMPY_DTYPES",
]

_KINDS = ("bool", "int", "uint", "float", "complex")


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, int, float, type(None))) else type(value).__name__
    return text if len(text) <= 40 else f"a {type(value).__name__}"


class DType:
    """A tensorplug dtype, compared by identity (``ALL_DTYPES`` lists them).

    ``name`` is the Array API standard's name ('bool', 'int8', 'uint16', 'complex64', ...),
    which libraries that follow the standard share: ``getattr(xp, dtype.name)`` is the
    library's dtype. ``kind`` is 'bool', 'int' (signed), 'uint' (unsigned), 'float' (real
    floating) or 'complex'; ``itemsize`` is in bytes; ``numpy`` is the numpy dtype.
    ``as_dtype`` and ``from_numpy_dtype`` map names, numpy dtypes and Python types to members.
    """

    __slots__ = ("name", "kind", "itemsize", "numpy", "is_floating", "is_complex", "is_inexact",
                 "is_integer", "is_signed_integer", "is_unsigned_integer", "is_bool")
    numpy: Any  # a numpy dtype; None only for bfloat16 without ml_dtypes (then in no dtype group)
    itemsize: int
    #: the real floating dtypes (float16, bfloat16, float32, float64)
    is_floating: bool
    #: complex64 and complex128
    is_complex: bool
    #: the real floating and complex dtypes: those autodiff differentiates
    is_inexact: bool
    #: the signed and unsigned integer dtypes
    is_integer: bool
    #: int8, int16, int32 and int64
    is_signed_integer: bool
    #: uint8, uint16, uint32 and uint64
    is_unsigned_integer: bool
    #: bool
    is_bool: bool

    def __init__(self, name: str, kind: str, numpy_dtype: Any, itemsize: int = 0) -> None:
        if not isinstance(name, str) or kind not in _KINDS or type(itemsize) is not int or itemsize < 0:
            raise ArgumentError(f"DType: name must be a str, kind one of {', '.join(map(repr, _KINDS))} and "
                                f"itemsize an int >= 0; got name={_shown(name)}, kind={_shown(kind)}, "
                                f"itemsize={_shown(itemsize)}. The dtypes are tp.float32, tp.int64, ... "
                                "(tp.dtypes.as_dtype('float32') finds one by name).")
        self.name = name
        self.kind = kind
        try:
            self.numpy = np.dtype(numpy_dtype) if numpy_dtype is not None else None
        except (TypeError, ValueError):
            raise DTypeError(f"DType {name!r}: numpy_dtype must be a numpy dtype (or None), got "
                             f"{_shown(numpy_dtype)}.") from None
        self.itemsize = self.numpy.itemsize if self.numpy is not None else itemsize
        # (attributes, not properties: autodiff and the ops read them on every call)
        self.is_floating = kind == "float"
        self.is_complex = kind == "complex"
        self.is_inexact = kind in ("float", "complex")
        self.is_integer = kind in ("int", "uint")
        self.is_signed_integer = kind == "int"
        self.is_unsigned_integer = kind == "uint"
        self.is_bool = kind == "bool"

    def __repr__(self) -> str:
        return f"tp.{self.name}"

    def __reduce__(self) -> str:
        return self.name if self.name != "bool" else "bool_"


_NUMPY_SLOT: Any = DType.__dict__["numpy"]
_NOT_READ: Any = object()


class _MLDType(DType):
    """A dtype whose numpy dtype is ml_dtypes' (bfloat16): ml_dtypes is imported at the first
    read of ``numpy`` (which is None without it)."""

    __slots__ = ()

    def __init__(self, name: str, itemsize: int) -> None:
        super().__init__(name, "float", None, itemsize)
        if _HAS_ML_DTYPES:
            _NUMPY_SLOT.__set__(self, _NOT_READ)

    @property
    def numpy(self) -> Any:
        held = _NUMPY_SLOT.__get__(self, DType)
        if held is _NOT_READ:
            import ml_dtypes  # (optional, and ~5 ms to load: tests/test_import_graph.py)

            held = np.dtype(getattr(ml_dtypes, self.name))
            _NUMPY_SLOT.__set__(self, held)
            _BY_NUMPY[held] = self
        return held

    @numpy.setter
    def numpy(self, value: Any) -> None:
        _NUMPY_SLOT.__set__(self, value)


bool_ = DType("bool", "bool", np.bool_)
int8 = DType("int8", "int", np.int8)
int16 = DType("int16", "int", np.int16)
int32 = DType("int32", "int", np.int32)
int64 = DType("int64", "int", np.int64)
uint8 = DType("uint8", "uint", np.uint8)
uint16 = DType("uint16", "uint", np.uint16)
uint32 = DType("uint32", "uint", np.uint32)
uint64 = DType("uint64", "uint", np.uint64)
float16 = DType("float16", "float", np.float16)
bfloat16 = _MLDType("bfloat16", itemsize=2)
float32 = DType("float32", "float", np.float32)
float64 = DType("float64", "float", np.float64)
complex64 = DType("complex64", "complex", np.complex64)
complex128 = DType("complex128", "complex", np.complex128)

SIGNED_INT_DTYPES: tuple[DType, ...] = (int8, int16, int32, int64)
UNSIGNED_INT_DTYPES: tuple[DType, ...] = (uint8, uint16, uint32, uint64)
INT_DTYPES: tuple[DType, ...] = SIGNED_INT_DTYPES + UNSIGNED_INT_DTYPES
# The standard's first (kits and tests meet float32 before the half floats); bfloat16 only with
# ml_dtypes: without it no group lists it, so no kernel spec takes it.
FLOAT_DTYPES: tuple[DType, ...] = (float32, float64, float16) + ((bfloat16,) if _HAS_ML_DTYPES else ())
COMPLEX_DTYPES: tuple[DType, ...] = (complex64, complex128)
NUMERIC_DTYPES: tuple[DType, ...] = INT_DTYPES + FLOAT_DTYPES  # real numeric
INEXACT_DTYPES: tuple[DType, ...] = FLOAT_DTYPES + COMPLEX_DTYPES
ALL_NUMERIC_DTYPES: tuple[DType, ...] = NUMERIC_DTYPES + COMPLEX_DTYPES
ALL_DTYPES: tuple[DType, ...] = (bool_,) + ALL_NUMERIC_DTYPES
#: The Array API standard's dtypes: all but tensorplug's float16 and bfloat16.
STANDARD_DTYPES: tuple[DType, ...] = tuple(d for d in ALL_DTYPES if d not in (float16, bfloat16))

default_float = float32
default_int = int64
default_complex = complex64  # the standard: the complex dtype of the default float's precision

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d is not bfloat16}  # (bfloat16's joins at its first read)
#: the numpy dtypes of tensorplug's dtypes (a live view: bfloat16's from the first read of it)
NUMPY_DTYPES = _BY_NUMPY.keys()
_COMPLEX_OF = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128,
               complex64: complex64, complex128: complex128}
_REAL_OF = {complex64: float32, complex128: float64}
_SIGNED_OF_SIZE = {1: int8, 2: int16, 4: int32, 8: int64}


def complex_of(dtype: DType) -> DType:
    """The complex dtype of a real floating dtype's precision (complex dtypes map to themselves)."""
    return _COMPLEX_OF[dtype]


def real_of(dtype: DType) -> DType:
    """The real floating dtype of a complex dtype's precision (other dtypes map to themselves)."""
    return _REAL_OF.get(dtype, dtype)


def accumulator_of(dtype: DType) -> DType:
    """The dtype sums and products of `dtype` accumulate in (the standard's rule): bool and
    signed integers int64, unsigned integers uint64, floats and complex their own."""
    return _ACCUMULATOR.get(dtype, dtype)


_ACCUMULATOR = {bool_: int64, int8: int64, int16: int64, int32: int64,
                uint8: uint64, uint16: uint64, uint32: uint64}


def is_floating_numpy(np_dtype: Any) -> bool:
    """Whether a numpy dtype is one of tensorplug's real floating dtypes (test this, not
    ``kind == "f"``: bfloat16's numpy kind is "V")."""
    dtype = _of_numpy(np.dtype(np_dtype))
    return dtype is not None and dtype.is_floating


def is_inexact_numpy(np_dtype: Any) -> bool:
    """Whether a numpy dtype is one of tensorplug's real floating or complex dtypes."""
    dtype = np.dtype(np_dtype)
    return dtype.kind == "c" or is_floating_numpy(dtype)


def _of_numpy(np_dtype: np.dtype) -> DType | None:
    found = _BY_NUMPY.get(np_dtype)
    if found is None and np_dtype.name == "bfloat16" and bfloat16.numpy == np_dtype:  # (not read yet)
        return bfloat16
    return found


def from_numpy_dtype(np_dtype: Any) -> DType:
    """The tensorplug dtype of a numpy dtype; DTypeError for dtypes tensorplug does not support."""
    try:
        return _BY_NUMPY[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        found = _of_numpy(np.dtype(np_dtype))
        if found is None:
            raise KeyError(np_dtype)
        return found
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
        return _usable(dtype)
    if isinstance(dtype, str) and dtype in _BY_NAME:
        return _usable(_BY_NAME[dtype])
    if dtype is float:
        return default_float
    if dtype is int:
        return default_int
    if dtype is bool:
        return bool_
    if dtype is complex:
        return default_complex
    return from_numpy_dtype(dtype)


def _usable(dtype: DType) -> DType:
    if dtype.numpy is None:
        raise DTypeError(f"{dtype.name} needs the ml_dtypes package, which holds its numpy dtype: "
                         "pip install ml_dtypes (the numpy and jax backends install it).")
    return dtype


def _promote_pair(a: DType, b: DType) -> DType:
    if a is b:
        return a
    if a.kind == b.kind:
        if a.itemsize == b.itemsize:  # float16 with bfloat16: neither holds the other
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a.kind == "bool":
        return b
    if b.kind == "bool":
        return a
    if a.is_integer and b.is_integer:
        return _signed_and_unsigned(a, b)
    if a.is_integer:
        return b  # an integer meeting a float or complex dtype gives that dtype
    if b.is_integer:
        return a
    real, cplx = (a, b) if a.kind == "float" else (b, a)  # the complex dtype of the higher precision
    return cplx if cplx.itemsize >= 2 * real.itemsize else complex_of(real)


def _signed_and_unsigned(a: DType, b: DType) -> DType:
    signed, unsigned = (a, b) if a.kind == "int" else (b, a)
    if unsigned.itemsize < signed.itemsize:
        return signed
    wider = _SIGNED_OF_SIZE.get(2 * unsigned.itemsize)
    if wider is None:
        raise DTypeError(
            f"no integer dtype holds every value of both {signed.name} and {unsigned.name}; cast "
            "one of them first, e.g. x.astype(tp.int64) or x.astype(tp.float64)."
        )
    return wider


def result_type(*dtypes: DType) -> DType:
    """The promoted dtype of several tensor dtypes (Array API table, JAX-like across kinds)."""
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
        if other is not None and other.is_inexact:
            return other
        return default_float
    if isinstance(value, complex):
        if other is not None and other.is_inexact:
            return complex_of(other)
        return default_complex
    raise DTypeError(
        f"cannot use a {type(value).__name__} as a tensor value; pass a bool, int, float, complex, "
        "a sequence of them, a numpy array or a tensorplug Tensor."
    )
