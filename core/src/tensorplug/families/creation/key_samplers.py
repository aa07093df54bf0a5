"""Continuous distributions (and bernoulli) drawn from a key (``families/creation/keys.py``),
each as its ``jax.random`` namesake computes it from the same bits, with tensorplug ops: the
same key gives the same numbers on every backend and, to float rounding, the same as JAX.
Argument order is JAX's; the discrete draws are in ``key_choices.py``.

Floats are built from the top mantissa bits as JAX builds them (float32 takes 32 bits per
number, float64 64); normals go through the kernel Erfinv (XLA's polynomials, ``tp.erfinv``), so
they are JAX's to an ulp or two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.dtype_functions import finfo
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import (
    DType,
    bfloat16,
    default_float,
    float16,
    float32,
    float64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype
from tensorplug.families.creation.keys import draw_bits, key_parts
from tensorplug.families.creation.ops import new_shape
from tensorplug.families.elementwise.bitwise import bitwise_right_shift
from tensorplug.families.elementwise.ops import (
    clip,
    erfinv,
    less,
    log,
    log1p,
    maximum,
    negative,
)

__all__ = ["uniform", "normal", "bernoulli", "exponential", "truncated_normal", "gumbel", "float_dtype"]

_UNSIGNED = {8: uint8, 16: uint16, 32: uint32, 64: uint64}
_MANTISSA_BITS = {float16: 10, bfloat16: 7, float32: 23, float64: 52}


def float_dtype(dtype: Any, op: str) -> DType:
    """The real floating dtype a sampler draws (float32 for None); a DTypeError naming `op` else."""
    dt = default_float if dtype is None else valid.dtype(dtype, op)
    if not dt.is_floating:
        raise DTypeError(f"{op}: dtype must be a real floating dtype (float16, bfloat16, float32 "
                         f"or float64), got {dt.name}; for integers use tp.random.randint.")
    return dt


def _bound(value: Any, dtype: DType, op: str, arg: str) -> Tensor:
    """A float bound (number or tensor) as a tensor of `dtype`."""
    if isinstance(value, Tensor):
        return astype(value, dtype)
    return asarray(valid.number(value, op, arg), dtype=dtype)


def _is_number(value: Any, number: int) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == number


def _unit(key: Tensor, shape: tuple[int, ...], dtype: DType, op: str, span: float = 1.0) -> Tensor:
    """Floats in [0, 1) from the top mantissa bits of one draw each, as JAX's ``_uniform``
    (1.m - 1 = m * 2**-nmant, exactly), times `span` (a power of two: exactly too)."""
    k1, k2 = key_parts(key, op)
    nmant = _MANTISSA_BITS[dtype]
    rng_bits = 8 if nmant < 8 else dtype.itemsize * 8
    raw = draw_bits(k1, k2, shape, _UNSIGNED[rng_bits], op)
    return astype(bitwise_right_shift(raw, rng_bits - nmant), dtype) * (span * 2.0 ** -nmant)


def _halves(x: Tensor) -> tuple[Tensor, Tensor]:
    """Veltkamp's split of float64 `x` into two halves of 26 bits whose products are exact."""
    t = x * 134217729.0  # 2**27 + 1
    high = t - (t - x)
    return high, x - high


def _fused_multiply_add(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """a * b + c rounded once, as XLA's fused multiply-add on CPU gives JAX's samplers: float32
    through float64 (where the product is exact); float64 by Dekker's exact product and an
    error-free sum (Ogita, Rump and Oishi's FMA emulation); float16 and bfloat16 unfused, as
    XLA computes them."""
    if a.dtype == float32:
        return astype(astype(a, float64) * astype(b, float64) + astype(c, float64), float32)
    if a.dtype != float64:
        return a * b + c
    product = a * b
    (a1, a2), (b1, b2) = _halves(a), _halves(b)
    product_error = ((a1 * b1 - product) + a1 * b2 + a2 * b1) + a2 * b2
    total = product + c
    part = total - product
    sum_error = (product - (total - part)) + (c - part)
    return total + (sum_error + product_error)


def _uniform(key: Tensor, shape: tuple[int, ...], dtype: DType, minval: Tensor, maxval: Tensor,
             op: str) -> Tensor:
    """max(minval, unit * (maxval - minval) + minval), as JAX's ``_uniform``."""
    return maximum(minval, _fused_multiply_add(_unit(key, shape, dtype, op), maxval - minval, minval))


def uniform(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0) -> Tensor:
    """Floats in [minval, maxval) of `shape` (float32 unless `dtype`) from `key`, as
    ``jax.random.uniform``."""
    dims, dt = new_shape(shape, "uniform"), float_dtype(dtype, "uniform")
    if _is_number(minval, 0) and _is_number(maxval, 1):  # [0, 1): the unit floats, in `dt` alone
        return _unit(key, dims, dt, "uniform")
    low, high = _bound(minval, dt, "uniform", "minval"), _bound(maxval, dt, "uniform", "maxval")
    return _uniform(key, dims, dt, low, high, "uniform")


def _sqrt2(dtype: DType) -> float:
    """sqrt(2) rounded to `dtype`, as JAX's constant ``np.array(np.sqrt(2), dtype)``."""
    return float(np.array(np.sqrt(2), dtype.numpy))


def _normal_from(u: Tensor, dtype: DType) -> Tensor:
    """sqrt(2) erfinv(u) for u in (-1, 1), in `dtype`, as JAX computes it."""
    return erfinv(u) * _sqrt2(dtype)


def normal(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None) -> Tensor:
    """Standard normal samples of `shape` (float32 unless `dtype`) from `key`, as
    ``jax.random.normal``."""
    dims, dt = new_shape(shape, "normal"), float_dtype(dtype, "normal")
    lo = float(np.nextafter(np.array(-1.0, dt.numpy), np.array(0.0, dt.numpy)))
    # JAX's uniform in [lo, 1): its span 1 - lo rounds to 2, a power of two, so the product is
    # exact and the sum rounded once, as the fused multiply-add rounds it; JAX's max(lo, u) is
    # left out: u = lo + (a number >= 0) rounds to lo or above
    u = _unit(key, dims, dt, "normal", span=2.0) + lo
    return _normal_from(u, dt)


def truncated_normal(key: Tensor, lower: float, upper: float, shape: int | Sequence[int] | None = None,
                     dtype: Any = None) -> Tensor:
    """Standard normal samples conditioned on (lower, upper) (Python floats; -inf and inf
    allowed), of `shape` (default ()), as ``jax.random.truncated_normal``."""
    op = "truncated_normal"
    dims, dt = new_shape(() if shape is None else shape, op), float_dtype(dtype, op)
    lo, hi = float(valid.number(lower, op, "lower")), float(valid.number(upper, op, "upper"))
    if not lo < hi:
        raise ShapeError(f"{op}: lower must be below upper, got lower={lo} and upper={hi}; swap them.")
    scale = np.array(_sqrt2(dt), dt.numpy)
    a = math.erf(float(np.array(lo, dt.numpy) / scale))
    b = math.erf(float(np.array(hi, dt.numpy) / scale))
    u = _uniform(key, dims, dt, asarray(a, dtype=dt), asarray(b, dtype=dt), op)
    inner = (np.nextafter(np.array(lo, dt.numpy), np.array(np.inf, dt.numpy)),
             np.nextafter(np.array(hi, dt.numpy), np.array(-np.inf, dt.numpy)))
    return clip(_normal_from(u, dt), float(inner[0]), float(inner[1]))


def bernoulli(key: Tensor, p: Any = 0.5, shape: int | Sequence[int] | None = None) -> Tensor:
    """Booleans, True with probability `p` (a float or floating tensor broadcast to `shape`,
    default p's shape), as ``jax.random.bernoulli``: uniform(key, shape, p's dtype) < p."""
    prob = p if isinstance(p, Tensor) else asarray(valid.number(p, "bernoulli", "p"), dtype=default_float)
    if not prob.dtype.is_floating:
        raise DTypeError(f"bernoulli: p must be a float or a floating tensor, got dtype "
                         f"{prob.dtype.name}; pass tp.astype(p, tp.float32).")
    dims = prob.shape if shape is None else new_shape(shape, "bernoulli")
    return less(uniform(key, dims, prob.dtype), prob)


def exponential(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None) -> Tensor:
    """Exponential samples (rate 1) of `shape`, as ``jax.random.exponential``: -log1p(-u)."""
    return negative(log1p(negative(uniform(key, shape, float_dtype(dtype, "exponential")))))


def gumbel(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None) -> Tensor:
    """Standard Gumbel samples of `shape`, as ``jax.random.gumbel`` (mode "low"): -log(-log(u))."""
    dt = float_dtype(dtype, "gumbel")
    u = uniform(key, shape, dt, minval=finfo(dt).smallest_normal)
    return negative(log(negative(log(u))))
