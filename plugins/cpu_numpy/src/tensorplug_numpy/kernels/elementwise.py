"""Elementwise kernels: unary math, binary arithmetic, comparisons, logic and bit operations from
one table of numpy functions, plus the few kernels that need more than one numpy call (Sigmoid, Pow of
integers, Cast, Where, Clip, Erfinv: XLA's polynomials, fused in ``_erfinv``).

Binary kernels receive inputs of one dtype (the spec says so; ops promote first), so numpy's
own result dtype is the spec's: a float32 quotient stays float32, an int32 maximum stays int32.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import DirectCall
from tensorplug.kernel_helpers import (
    PLAIN_ARITHMETIC,
    UNARY_KERNELS,
    clip_bounds,
    elementwise_functions,
    expm1_complex_parts,
)
from tensorplug_numpy._quiet import quieted
from tensorplug_numpy.kernels._erfinv import erfinv
from tensorplug_numpy.kernels._kernel import Kernel

# The table's kernels offer their numpy function as their direct call (see DirectCall): numpy's
# own result dtype is the spec's for the dtypes ops give them. Plain arithmetic and comparisons
# (``quiet=False``) leave numpy's floating-point warnings on (see ``_quiet``); the rest switch
# them off around the call.


def _unary(fn: Callable[[Any], Any], quiet: bool = True) -> Kernel:
    run = quieted(fn) if quiet else fn

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return run(inputs[0])

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return Kernel(kernel, DirectCall(ALL_DTYPES, run), handles_warnings=True)


def _binary(fn: Callable[[Any, Any], Any], quiet: bool = True) -> Kernel:
    run = quieted(fn, arity=2) if quiet else fn

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x, y = inputs
        return run(x, y)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return Kernel(kernel, DirectCall(ALL_DTYPES, run), handles_warnings=True)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) from exp(-|x|) only, so no overflow and full relative precision in
    both tails; keeps the float dtype."""
    e = np.exp(-np.abs(x))
    r = 1 / (1 + e)
    return np.where(x >= 0, r, e * r)


_ZEROS: dict[np.dtype, np.ndarray] = {}  # a 0-d zero per dtype: a ufunc takes it for less than a Python 0


def relu(x: np.ndarray) -> np.ndarray:
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = np.zeros((), x.dtype)
    return np.maximum(x, zero)


def power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ** y; an integer to a negative integer power is its value truncated toward zero
    (1 for x == 1, +-1 for x == -1, 0 otherwise, also for x == 0) instead of numpy's error."""
    try:
        return np.power(x, y)
    except ValueError:  # "Integers to negative integer powers are not allowed."
        if np.result_type(x, y).kind not in "iu":
            raise
        negative = y < 0
        out = np.power(x, np.where(negative, 0, y))
        odd = (y % 2) == 1
        truncated = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0))
        return np.where(negative, truncated.astype(out.dtype), out)


def expm1(x: np.ndarray) -> np.ndarray:
    """exp(x) - 1; complex x by ``expm1_complex_parts`` (numpy misses the standard's special
    cases of infinite and NaN parts)."""
    if x.dtype.kind != "c":
        return np.expm1(x)
    re, im = expm1_complex_parts(np, x)
    out = np.empty(np.shape(x), x.dtype)
    out.real, out.imag = re, im
    return out


def cast(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    # the same array when the dtype already matches: native arrays are never written
    return inputs[0].astype(attrs["dtype"].numpy, copy=False)


def _cast_to(attrs: Mapping[str, Any]) -> Callable[[Any], Any]:
    """Cast's direct call: ``x.astype(dtype, copy=False)`` (warnings off: a float64 too large
    for float32 gives inf)."""
    return quieted(operator.methodcaller("astype", attrs["dtype"].numpy, copy=False))


# np.where branches on every element: on a condition without a pattern (a ReLU's mask) the
# mispredictions make it cost 3x a select through the bits from about a thousand elements on
_SELECT_BY_BITS_FROM = 1024
#: the unsigned integer dtype of a float's bits, by the float's itemsize
UNSIGNED_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_BOOL = np.dtype(np.bool_)  # (a condition of another dtype, from a caller that skipped the spec: np.where)


def where(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """np.where's values, bit for bit; large inputs of one dtype go through `_select_bits`."""
    condition, x, y = inputs
    if (condition.dtype == _BOOL and x.dtype == y.dtype and x.dtype.itemsize in UNSIGNED_OF_SIZE
            and max(condition.size, x.size, y.size) >= _SELECT_BY_BITS_FROM):
        return _select_bits(condition, x, y)
    return np.where(condition, x, y)


def _select_bits(condition: Any, x: Any, y: Any) -> Any:
    """x where condition else y, without a branch: y ^ ((x ^ y) * condition) on the values' bits
    (an integer product by 1 or 0: exact), just x's bits * condition when y is a scalar of zero
    bits (+0.0: a ReLU's gradient). Exact for any values (NaN, -0.0 and inf included)."""
    bits = UNSIGNED_OF_SIZE[x.dtype.itemsize]
    x_bits, y_bits = x.view(bits), y.view(bits)
    if y.ndim == 0 and not y_bits:
        return np.multiply(x_bits, condition).view(x.dtype)
    out = np.multiply(np.bitwise_xor(x_bits, y_bits), condition)  # of the broadcast shape
    out ^= y_bits
    return out.view(x.dtype)


def clip(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """x limited to [min, max] by np.clip, with bounds that keep integer x's dtype (clip_bounds)."""
    x = inputs[0]
    lo, hi = attrs["min"], attrs["max"]
    if lo is None and hi is None:
        return x
    out = np.clip(x, *clip_bounds("Clip", backend.name, x.dtype, lo, hi))
    return out if out.dtype == x.dtype else out.astype(x.dtype)  # (bfloat16 with two bounds: float32)


def _table_kernel(name: str, fn: Callable[..., Any]) -> Kernel:
    """The kernel of one table entry; plain arithmetic keeps numpy's warning settings."""
    build = _unary if name in UNARY_KERNELS else _binary
    return build(fn, quiet=name not in PLAIN_ARITHMETIC)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    **{name: _table_kernel(name, fn)
       for name, fn in elementwise_functions(np, Sigmoid=sigmoid, Relu=relu, Pow=power, Expm1=expm1).items()},
    "Cast": Kernel(cast, DirectCall(ALL_DTYPES, specialize=_cast_to)),
    "Where": Kernel(where, handles_warnings=True),  # (selects: no floating-point warning)
    "Clip": clip,
    "Copy": _unary(np.copy, quiet=False),  # (copies: nothing to warn about)
    "Erfinv": _unary(erfinv),
}
