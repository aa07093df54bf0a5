"""Elementwise kernels: unary math, binary arithmetic, comparisons and logic from one table of
numpy functions, plus the few kernels that need more than one numpy call (Sigmoid, Pow of
integers, Cast, Where, Clip).

Binary kernels receive inputs of one dtype (the spec says so; ops promote first), so numpy's
own result dtype is the spec's: a float32 quotient stays float32, an int32 maximum stays int32.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import DirectCall

from .._quiet import quieted
from ._kernel import Kernel

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


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)  # a Python 0 is weak: int32 stays int32, float32 stays float32


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


def cast(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    # the same array when the dtype already matches: native arrays are never written
    return inputs[0].astype(attrs["dtype"].numpy, copy=False)


def where(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    condition, x, y = inputs
    return np.where(condition, x, y)


def clip(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """x limited to [min, max]. For integer x the bounds become the integers inside them
    (ceil(min), floor(max)) limited to the dtype's range, so the dtype never changes."""
    x = inputs[0]
    lo, hi = attrs["min"], attrs["max"]
    if lo is None and hi is None:
        return x
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        lo = None if lo is None else _int_bound(lo, math.ceil, info)
        hi = None if hi is None else _int_bound(hi, math.floor, info)
    return np.clip(x, lo, hi)


def _int_bound(value: float, to_int: Callable[[float], int], info: Any) -> int:
    if value != value:  # NaN: no bound an integer could meet
        raise ValueError(f"cannot clip integers to a NaN bound ({value})")
    if value <= info.min:
        return int(info.min)
    if value >= info.max:
        return int(info.max)
    return to_int(value)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    # unary
    "Negative": _unary(np.negative, quiet=False),
    "Abs": _unary(np.abs, quiet=False),
    "Sign": _unary(np.sign, quiet=False),
    "Square": _unary(np.square),
    "Floor": _unary(np.floor, quiet=False),
    "Ceil": _unary(np.ceil, quiet=False),
    "Round": _unary(np.round, quiet=False),  # halves to even, like the spec
    "Exp": _unary(np.exp),
    "Log": _unary(np.log),
    "Log1p": _unary(np.log1p),
    "Expm1": _unary(np.expm1),
    "Sqrt": _unary(np.sqrt),
    "Sin": _unary(np.sin),
    "Cos": _unary(np.cos),
    "Tanh": _unary(np.tanh),
    "Sigmoid": _unary(sigmoid),
    "Relu": _unary(relu, quiet=False),
    "LogicalNot": _unary(np.logical_not, quiet=False),
    # binary
    "Add": _binary(np.add, quiet=False),
    "Subtract": _binary(np.subtract, quiet=False),
    "Multiply": _binary(np.multiply, quiet=False),
    "Divide": _binary(np.divide),
    "FloorDivide": _binary(np.floor_divide),
    "Pow": _binary(power),
    "Maximum": _binary(np.maximum, quiet=False),
    "Minimum": _binary(np.minimum, quiet=False),
    "Equal": _binary(np.equal, quiet=False),
    "NotEqual": _binary(np.not_equal, quiet=False),
    "Less": _binary(np.less, quiet=False),
    "LessEqual": _binary(np.less_equal, quiet=False),
    "Greater": _binary(np.greater, quiet=False),
    "GreaterEqual": _binary(np.greater_equal, quiet=False),
    "LogicalAnd": _binary(np.logical_and, quiet=False),
    "LogicalOr": _binary(np.logical_or, quiet=False),
    # the rest
    "Cast": cast,
    "Where": where,
    "Clip": clip,
}
