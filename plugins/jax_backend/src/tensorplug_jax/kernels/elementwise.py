"""Elementwise kernels: unary math, binary arithmetic, comparisons and logic from one table of
``jax.numpy`` functions, plus the kernels that need more (Sigmoid, Pow of integers, division
by zero of FloorDivide, zeros of Mod, Cast, Where, Clip). Results match the numpy backend's:
same values, dtypes and shapes.

Binary kernels receive inputs of one dtype (the spec says so; ops promote first), so jax's
result dtype is the spec's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from tensorplug.kernel_helpers import (
    COMPLEX_SPECIAL_CASES,
    UNARY_KERNELS,
    clip_bounds,
    elementwise_functions,
    expm1_complex_parts,
    floor_divide_floats,
)
from tensorplug_jax.kernels._jit import JaxKernel, binary, unary, with_attrs


def sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x)) from exp(-|x|) only (as the numpy backend): no overflow and full
    relative precision in both tails (XLA's logistic loses the lower tail in float32)."""
    e = jnp.exp(-jnp.abs(x))
    r = 1 / (1 + e)
    return jnp.where(x >= 0, r, e * r)


def relu(x: Any) -> Any:
    return jnp.maximum(x, 0)  # a Python 0 is weak: int32 stays int32, float32 stays float32


def _integer_power(x: Any, y: Any) -> Any:
    """x ** y for integers and y >= 0, wrapping around as numpy does: square and multiply over
    every bit of y (jnp.power reads only y's 6 lowest bits: 2 ** 64 gave 1, not 0)."""
    def step(_: Any, carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        out, base, e = carry
        return jnp.where((e & 1) == 1, out * base, out), base * base, e >> 1

    x, y = jnp.broadcast_arrays(x, y)
    out, _, _ = lax.fori_loop(0, jnp.iinfo(y.dtype).bits, step, (jnp.ones_like(x), x, y))
    return out


def power(x: Any, y: Any) -> Any:
    """x ** y; an integer to a negative integer power is its value truncated toward zero (1 for
    x == 1, +-1 for x == -1, 0 otherwise), as the numpy backend defines it."""
    if not jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.power(x, y)
    negative = y < 0
    out = _integer_power(x, jnp.where(negative, 0, y))
    odd = (y % 2) == 1
    truncated = jnp.where(x == 1, 1, jnp.where(x == -1, jnp.where(odd, -1, 1), 0)).astype(out.dtype)
    return jnp.where(negative, truncated, out)


def floor_divide(x: Any, y: Any) -> Any:
    """floor(x / y); an integer divided by zero gives 0, as tensorplug defines it (XLA gives
    -1 or other values); floats by ``floor_divide_floats`` (numpy's values, signed zeros too)."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        return floor_divide_floats(jnp, x, y)
    zero = y == 0
    return jnp.where(zero, 0, jnp.floor_divide(x, jnp.where(zero, 1, y))).astype(x.dtype)


def expm1(x: Any) -> Any:
    """exp(x) - 1; complex x by ``expm1_complex_parts`` (XLA misses the standard's special
    cases of infinite and NaN parts)."""
    if not jnp.issubdtype(x.dtype, jnp.complexfloating):
        return jnp.expm1(x)
    return lax.complex(*expm1_complex_parts(jnp, x))


def _with_complex_special_cases(name: str, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`fn`, whose complex results take the Array API's special cases of infinite and NaN
    inputs (``COMPLEX_SPECIAL_CASES``: XLA misses them, numpy does not)."""
    fix = COMPLEX_SPECIAL_CASES[name]

    def kernel(x: Any) -> Any:
        out = fn(x)
        if not jnp.issubdtype(x.dtype, jnp.complexfloating):
            return out
        re, im = fix(jnp, jnp.real(x), jnp.imag(x), jnp.real(out), jnp.imag(out))
        return lax.complex(re.astype(out.real.dtype), im.astype(out.real.dtype))

    kernel.__name__ = getattr(fn, "__name__", name.lower())
    return kernel


def sign(x: Any) -> Any:
    """-1, 0 or 1 (x / |x| for complex); +0 at zeros of either sign (XLA keeps the -0)."""
    return jnp.where(x == 0, jnp.zeros_like(x), jnp.sign(x))


def remainder(x: Any, y: Any) -> Any:
    """x - y * floor(x / y) with the sign of y, as numpy: a zero remainder of floats is +0 or -0
    by the sign of y (XLA keeps x's), and an integer modulo 0 gives 0 (jnp does that itself)."""
    out = jnp.remainder(x, y)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return out
    return jnp.where(out == 0, jnp.copysign(jnp.zeros_like(out), y), out)


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
    # bounds in x's dtype: a Python int beyond int64 (uint64's top) is no weak scalar for jax
    return jnp.clip(x, None if lo is None else jnp.asarray(lo, x.dtype),
                    None if hi is None else jnp.asarray(hi, x.dtype))


_CLIP = with_attrs(_clip, static=("lo", "hi"))


def clip(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """x limited to [min, max] by one compiled function per pair of bounds, with bounds that
    keep integer x's dtype (clip_bounds)."""
    x = inputs[0]
    lo, hi = attrs["min"], attrs["max"]
    if lo is None and hi is None:
        return x
    lo, hi = clip_bounds("Clip", backend.name, x.dtype, lo, hi)
    return _CLIP(inputs, {"lo": lo, "hi": hi}, backend)


def copy(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """x in a new buffer: ``jnp.array(x, copy=True)`` (a compiled identity would hand back x's
    own buffer, which may be a numpy array's memory: ``tp.asarray(a, copy=False)``)."""
    return jnp.array(inputs[0], copy=True)


_FUNCTIONS = elementwise_functions(jnp, Sigmoid=sigmoid, Relu=relu, Pow=power, FloorDivide=floor_divide,
                                   Mod=remainder, Expm1=expm1, Sign=sign)
_FUNCTIONS.update({name: _with_complex_special_cases(name, _FUNCTIONS[name])
                   for name in COMPLEX_SPECIAL_CASES})

KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    **{name: (unary if name in UNARY_KERNELS else binary)(fn) for name, fn in _FUNCTIONS.items()},
    "Cast": cast,
    "Where": _WHERE,
    "Clip": clip,
    "Copy": copy,
    "Erfinv": unary(lax.erf_inv),  # (XLA's ErfInv: what jax.random.normal draws through)
}
