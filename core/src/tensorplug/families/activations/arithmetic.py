"""Elementwise arithmetic ops TF.js has beyond the Array API: ``squared_difference``,
``rsqrt``, ``add_n`` and ``complex`` (top-level: ``tp.squared_difference`` ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_, complex_of, result_type
from tensorplug.errors import ArgumentError, DTypeError
from tensorplug.families._common.convert import asarray, astype, caller, convert_pair, to_float
from tensorplug.families.activations.spec import add_n_shape

__all__ = ["add_n", "complex", "rsqrt", "squared_difference"]

_SQUARED_DIFFERENCE = caller("SquaredDifference")
_RSQRT = caller("Rsqrt")
_ADD_N = caller("AddN")


def squared_difference(x: Any, y: Any, /) -> Tensor:
    """(x - y) ** 2 elementwise with broadcasting, promoting as ``subtract``; for complex
    inputs (x - y) * conj(x - y), TF's definition (|x - y| ** 2, in the complex dtype)."""
    x, y = convert_pair(x, y, "squared_difference")
    if x._dtype is bool_:
        raise DTypeError("squared_difference does not accept bool tensors; cast first, e.g. "
                         "x.astype(tp.float32).")
    return _SQUARED_DIFFERENCE((x, y), {})


def rsqrt(x: Any, /) -> Tensor:
    """1 / sqrt(x) elementwise; integer and bool inputs give the default float dtype (float32),
    complex ones stay complex."""
    return _RSQRT((to_float(x),), {})


def add_n(xs: Sequence[Any], /) -> Tensor:
    """The elementwise sum of a non-empty sequence of tensors of one shape (TF.js's addN:
    no broadcasting); their dtypes promote as ``add``'s."""
    if isinstance(xs, (Tensor, str, bytes)) or not isinstance(xs, Sequence):
        raise ArgumentError(f"add_n takes a list or tuple of tensors, got {type(xs).__name__}; e.g. "
                            "tp.add_n([a, b, c]).")
    if not xs:
        raise ArgumentError("add_n needs at least one tensor; pass e.g. tp.add_n([a, b]).")
    tensors = [asarray(x) for x in xs]
    dtype = result_type(*(t._dtype for t in tensors))
    if dtype is bool_:
        raise DTypeError("add_n does not accept bool tensors; cast first, e.g. x.astype(tp.int64).")
    add_n_shape([t.shape for t in tensors], "add_n")
    return _ADD_N(tuple(astype(t, dtype) for t in tensors), {})


def complex(real: Any, imag: Any, /) -> Tensor:  # noqa: A001
    """real + i * imag elementwise with broadcasting (TF.js's Complex, torch.complex): real
    floating inputs of one promoted dtype give its complex dtype (float64 -> complex128, the
    others complex64); differentiable in both."""
    real, imag = convert_pair(real, imag, "complex")
    if real._dtype.kind != "float" or imag._dtype.kind != "float":
        raise DTypeError(f"complex takes real floating inputs, got {real._dtype.name} and "
                         f"{imag._dtype.name}; cast first, e.g. x.astype(tp.float32).")
    out = complex_of(real._dtype)
    return astype(real, out) + astype(imag, out) * 1j
