"""Elementwise kernels: unary math, binary arithmetic, comparisons, logic and bit operations from
one table of torch functions (``kernel_helpers.elementwise_functions``), with overrides where
torch's own function differs from numpy (Pow, FloorDivide and Mod of integers, Sign of NaN,
Sigmoid's lower tail, complex Round, Expm1, Log1p and Acos; Equal is torch.eq, torch.equal being a
whole-tensor test), plus Cast, Where, Clip and Copy. Results match the numpy backend's: same
values, dtypes and shapes.

Binary kernels receive inputs of one dtype (the spec says so; ops promote first), so torch's
result dtype is the spec's. Each table kernel offers its torch function as its direct call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

import torch

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import DirectCall
from tensorplug.kernel_helpers import (
    COMPLEX_SPECIAL_CASES,
    UNARY_KERNELS,
    clip_bounds,
    elementwise_functions,
    expm1_complex_parts,
    floor_divide_floats,
)
from tensorplug_torch.backend import TORCH_DTYPES, torch_dtype
from tensorplug_torch.kernels._kernel import Kernel

__all__ = ["KERNELS"]


def _unary(fn: Callable[[Any], Any]) -> Kernel:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return fn(inputs[0])

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return Kernel(kernel, DirectCall(ALL_DTYPES, fn))


def _binary(fn: Callable[[Any, Any], Any]) -> Kernel:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x, y = inputs
        return fn(x, y)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return Kernel(kernel, DirectCall(ALL_DTYPES, fn))


def power(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x ** y; an integer to a negative integer power is its value truncated toward zero (1 for
    x == 1, +-1 for x == -1, 0 otherwise), as the numpy backend defines it (torch refuses it)."""
    if x.is_floating_point() or x.is_complex() or not bool((y < 0).any()):
        return torch.pow(x, y)
    negative = y < 0
    out = torch.pow(x, torch.where(negative, 0, y))
    odd = torch.remainder(y, 2) == 1
    one = torch.ones_like(out)
    truncated = torch.where(x == 1, one, torch.where(x == -1, torch.where(odd, -one, one), 0 * one))
    return torch.where(negative, truncated, out)


def _by_nonzero(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`fn` of integers where y != 0, and 0 where y == 0 (tensorplug's definition; torch raises
    for an integer division by zero)."""
    def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        zero = y == 0
        if not bool(zero.any()):
            return fn(x, y)
        out = fn(x, torch.where(zero, 1, y))
        return torch.where(zero, torch.zeros((), dtype=out.dtype, device=out.device), out)

    kernel.__name__ = fn.__name__
    return kernel


_INTEGER_FLOOR_DIVIDE = _by_nonzero(torch.floor_divide)
_INTEGER_REMAINDER = _by_nonzero(torch.remainder)


def floor_divide(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """floor(x / y): floats as numpy (``floor_divide_floats``), integers by zero give 0."""
    if x.is_floating_point():
        return floor_divide_floats(torch, x, y)
    return _INTEGER_FLOOR_DIVIDE(x, y)


def remainder(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x - y * floor(x / y) with the sign of y; a zero remainder of floats is signed as y (as
    numpy), an integer modulo 0 gives 0. (torch's vectorized loop goes through x / y: NaN where
    that quotient overflows, -1e30 % 1e-30 in float32, where numpy gives the remainder.)"""
    if not x.is_floating_point():
        return _INTEGER_REMAINDER(x, y)
    out = torch.remainder(x, y)
    return torch.where(out == 0, torch.copysign(torch.zeros_like(out), y), out)


def round_(x: torch.Tensor) -> torch.Tensor:
    """Halves to even; each part of a complex x (torch rounds no complex tensor)."""
    if x.is_complex():
        return torch.complex(torch.round(x.real), torch.round(x.imag))
    return torch.round(x)


def expm1(x: torch.Tensor) -> torch.Tensor:
    """exp(x) - 1; complex x by ``expm1_complex_parts`` (torch misses the standard's special
    cases: expm1(inf + 0j) is inf + 0j, not inf + nan j)."""
    if not x.is_complex():
        return torch.expm1(x)
    return torch.complex(*expm1_complex_parts(torch, x))


def log1p(x: torch.Tensor) -> torch.Tensor:
    """log(1 + x); complex x with the standard's special cases of infinite and NaN parts
    (``COMPLEX_SPECIAL_CASES``: torch gives nan + nan j for log1p(nan + inf j), not inf + nan j).
    An infinite complex x takes log(x), the same value (torch's complex128 log1p gives nan + nan j
    for -1.6e16 + inf j)."""
    if not x.is_complex():
        return torch.log1p(x)
    out = torch.where(torch.isinf(x), torch.log(x), torch.log1p(x))
    re, im = COMPLEX_SPECIAL_CASES["Log1p"](torch, x.real, x.imag, out.real, out.imag)
    return torch.complex(re, im)


def acos(x: torch.Tensor) -> torch.Tensor:
    """arccos(x); for complex x, a zero imaginary part takes the sign opposite to x's (torch
    gives acos(0 + 0j) = pi/2 + 0j, the standard pi/2 - 0j: acos(conj(x)) = conj(acos(x)))."""
    out = torch.acos(x)
    if not x.is_complex():
        return out
    return torch.complex(out.real, torch.where(out.imag == 0, torch.copysign(out.imag, -x.imag), out.imag))


def sign(x: torch.Tensor) -> torch.Tensor:
    """-1, 0 or 1 (x / |x| for complex: torch's sgn); NaN for NaN (torch gives 0)."""
    if x.is_floating_point():
        return torch.where(torch.isnan(x), x, torch.sign(x))
    return torch.sgn(x)


def sigmoid(x: torch.Tensor) -> torch.Tensor:
    """1 / (1 + exp(-x)) from exp(-|x|) only, as the numpy backend: full relative precision in
    both tails (torch.sigmoid gives 0 for float32 x = -100, whose sigmoid is 3.8e-44)."""
    e = torch.exp(-torch.abs(x))
    r = 1 / (1 + e)
    return torch.where(x >= 0, r, e * r)


def cast(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    # the same tensor when the dtype already matches: native arrays are never written
    return inputs[0].to(torch_dtype(attrs["dtype"], "Cast"))


def _cast_to(attrs: Mapping[str, Any]) -> Callable[[Any], Any] | None:
    """Cast's direct call: ``x.to(dtype)`` (x itself when it has the dtype), a C-level call;
    None for a dtype the backend does not hold (the kernel function refuses it)."""
    target = TORCH_DTYPES.get(attrs["dtype"])
    return None if target is None else operator.methodcaller("to", target)


def where(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    condition, x, y = inputs
    if condition.dtype != torch.bool:  # (a caller past the spec's check: torch.where takes bools only)
        condition = condition != 0
    return torch.where(condition, x, y)


def clip(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """x limited to [min, max], with bounds that keep integer x's dtype (clip_bounds)."""
    x = inputs[0]
    lo, hi = attrs["min"], attrs["max"]
    if lo is None and hi is None:
        return x
    lo, hi = clip_bounds("Clip", backend.name, backend.dtype_of(x).numpy, lo, hi)
    number = int if not (x.is_floating_point() or x.is_complex()) else float
    return torch.clamp(x, None if lo is None else number(lo), None if hi is None else number(hi))


def copy(x: torch.Tensor) -> torch.Tensor:
    """x in a buffer of its own (contiguous)."""
    return torch.clone(x, memory_format=torch.contiguous_format)


def _table_kernel(name: str, fn: Callable[..., Any]) -> Kernel:
    return (_unary if name in UNARY_KERNELS else _binary)(fn)


_OVERRIDES: dict[str, Callable[..., Any]] = {
    "Sign": sign, "Round": round_, "Relu": torch.relu, "Sigmoid": sigmoid, "Pow": power,
    "FloorDivide": floor_divide, "Mod": remainder, "Expm1": expm1, "Log1p": log1p, "Equal": torch.eq,
    "BitwiseInvert": torch.bitwise_not, "Conj": torch.conj_physical, "Acos": acos,
}

KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    **{name: _table_kernel(name, fn) for name, fn in elementwise_functions(torch, **_OVERRIDES).items()},
    "Cast": Kernel(cast, DirectCall(ALL_DTYPES, specialize=_cast_to)),
    "Where": where,
    "Clip": clip,
    "Copy": _unary(copy),
    "Erfinv": _unary(torch.erfinv),
}
