"""Elementwise kernels: unary math, binary arithmetic, comparisons and logic from one table of
``jax.numpy`` functions, plus the kernels that need more (Sigmoid, Pow of integers, Cast,
Where, Clip). Results match the numpy backend's: same values, dtypes and shapes.

Binary kernels receive inputs of one dtype (the spec says so; ops promote first), so jax's
result dtype is the spec's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from ._jit import JaxKernel, binary, unary, with_attrs


def sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x)) from exp(-|x|) only (as the numpy backend): no overflow and full
    relative precision in both tails (XLA's logistic loses the lower tail in float32)."""
    e = jnp.exp(-jnp.abs(x))
    r = 1 / (1 + e)
    return jnp.where(x >= 0, r, e * r)


def relu(x: Any) -> Any:
    return jnp.maximum(x, 0)  # a Python 0 is weak: int32 stays int32, float32 stays float32


def power(x: Any, y: Any) -> Any:
    """x ** y; an integer to a negative integer power is its value truncated toward zero (1 for
    x == 1, +-1 for x == -1, 0 otherwise), as the numpy backend defines it."""
    if not jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.power(x, y)
    negative = y < 0
    out = jnp.power(x, jnp.where(negative, 0, y))
    odd = (y % 2) == 1
    truncated = jnp.where(x == 1, 1, jnp.where(x == -1, jnp.where(odd, -1, 1), 0)).astype(out.dtype)
    return jnp.where(negative, truncated, out)


def _cast(x: Any, dtype: Any) -> Any:
    return x.astype(dtype.numpy)


_CAST = with_attrs(_cast, static=("dtype",))


def cast(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    if inputs[0].dtype == attrs["dtype"].numpy:
        return inputs[0]  # the same array: jax arrays are immutable
    return _CAST(inputs, attrs, backend)


def _where(condition: Any, x: Any, y: Any) -> Any:
    return jnp.where(condition, x, y)


_WHERE = with_attrs(_where)


def _clip(x: Any, lo: Any, hi: Any) -> Any:
    return jnp.clip(x, lo, hi)


_CLIP = with_attrs(_clip, static=("lo", "hi"))


def clip(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """x limited to [min, max]. For integer x the bounds become the integers inside them
    (ceil(min), floor(max)) limited to the dtype's range, so the dtype never changes."""
    x = inputs[0]
    lo, hi = attrs["min"], attrs["max"]
    if lo is None and hi is None:
        return x
    if np.issubdtype(x.dtype, np.integer):
        info = np.iinfo(x.dtype)
        lo = None if lo is None else _int_bound(lo, math.ceil, info)
        hi = None if hi is None else _int_bound(hi, math.floor, info)
    return _CLIP(inputs, {"lo": lo, "hi": hi}, backend)


def _int_bound(value: float, to_int: Callable[[float], int], info: Any) -> int:
    if value != value:  # NaN: no bound an integer could meet
        raise ValueError(f"cannot clip integers to a NaN bound ({value})")
    if value <= info.min:
        return int(info.min)
    if value >= info.max:
        return int(info.max)
    return to_int(value)


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    # unary
    "Negative": unary(jnp.negative),
    "Abs": unary(jnp.abs),
    "Sign": unary(jnp.sign),
    "Square": unary(jnp.square),
    "Floor": unary(jnp.floor),
    "Ceil": unary(jnp.ceil),
    "Round": unary(jnp.round),  # halves to even, like the spec
    "Exp": unary(jnp.exp),
    "Log": unary(jnp.log),
    "Log1p": unary(jnp.log1p),
    "Expm1": unary(jnp.expm1),
    "Sqrt": unary(jnp.sqrt),
    "Sin": unary(jnp.sin),
    "Cos": unary(jnp.cos),
    "Tanh": unary(jnp.tanh),
    "Sigmoid": unary(sigmoid),
    "Relu": unary(relu),
    "LogicalNot": unary(jnp.logical_not),
    # binary
    "Add": binary(jnp.add),
    "Subtract": binary(jnp.subtract),
    "Multiply": binary(jnp.multiply),
    "Divide": binary(jnp.divide),
    "FloorDivide": binary(jnp.floor_divide),
    "Pow": binary(power),
    "Maximum": binary(jnp.maximum),
    "Minimum": binary(jnp.minimum),
    "Equal": binary(jnp.equal),
    "NotEqual": binary(jnp.not_equal),
    "Less": binary(jnp.less),
    "LessEqual": binary(jnp.less_equal),
    "Greater": binary(jnp.greater),
    "GreaterEqual": binary(jnp.greater_equal),
    "LogicalAnd": binary(jnp.logical_and),
    "LogicalOr": binary(jnp.logical_or),
    # the rest
    "Cast": cast,
    "Where": _WHERE,
    "Clip": clip,
}
