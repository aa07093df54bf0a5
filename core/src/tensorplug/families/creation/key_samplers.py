"""Distributions drawn from a key (``families/creation/keys.py``), each as its ``jax.random``
namesake computes it from the same bits, with tensorplug ops: the same key gives the same
numbers on every backend and, to float rounding, the same as JAX. Argument order is JAX's.

Floats are built from the top mantissa bits as JAX builds them (float32 takes 32 bits per
number, float64 64); normals go through XLA's erfinv (``erfinv.py``), so they are JAX's to an
ulp or two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import (
    DType,
    bfloat16,
    default_float,
    default_int,
    float16,
    float32,
    float64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype, to_float
from tensorplug.families.creation.erfinv import erfinv
from tensorplug.families.creation.keys import draw_bits, key_parts, split
from tensorplug.families.creation.ops import arange, new_shape
from tensorplug.families.elementwise.bitwise import bitwise_right_shift
from tensorplug.families.elementwise.ops import (
    clip,
    less,
    log,
    log1p,
    maximum,
    negative,
    remainder,
)
from tensorplug.families.indexing.ops import take
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.reductions.ops import argmax
from tensorplug.families.sorting.ops import argsort

__all__ = ["uniform", "normal", "bernoulli", "exponential", "truncated_normal", "gumbel",
           "randint", "categorical", "permutation"]

_UNSIGNED = {8: uint8, 16: uint16, 32: uint32, 64: uint64}
_MANTISSA_BITS = {float16: 10, bfloat16: 7, float32: 23, float64: 52}
_WIDER = {float32: float64}


def _float_dtype(dtype: Any, op: str) -> DType:
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


def _unit(key: Tensor, shape: tuple[int, ...], dtype: DType, op: str) -> Tensor:
    """Floats in [0, 1) from the top mantissa bits of one draw each, as JAX's ``_uniform``
    (1.m - 1 = m * 2**-nmant, exactly)."""
    k1, k2 = key_parts(key, op)
    nmant = _MANTISSA_BITS[dtype]
    rng_bits = 8 if nmant < 8 else dtype.itemsize * 8
    raw = draw_bits(k1, k2, shape, _UNSIGNED[rng_bits], op)
    return astype(bitwise_right_shift(raw, rng_bits - nmant), dtype) * (2.0 ** -nmant)


def _uniform(key: Tensor, shape: tuple[int, ...], dtype: DType, minval: Tensor, maxval: Tensor,
             op: str) -> Tensor:
    """unit * (maxval - minval) + minval, rounded once as JAX's fused multiply-add on CPU gives
    it: computed in a dtype twice as wide (where the product is exact), then cast; float64
    rounds twice (so may differ from JAX by one ulp)."""
    wide = _WIDER.get(dtype, dtype)
    span = astype(maxval - minval, wide)
    scaled = astype(astype(_unit(key, shape, dtype, op), wide) * span + astype(minval, wide), dtype)
    return maximum(minval, scaled)


def uniform(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0) -> Tensor:
    """Floats in [minval, maxval) of `shape` (float32 unless `dtype`) from `key`, as
    ``jax.random.uniform``."""
    dims, dt = new_shape(shape, "uniform"), _float_dtype(dtype, "uniform")
    if _is_number(minval, 0) and _is_number(maxval, 1):  # [0, 1): the unit floats, in `dt` alone
        return _unit(key, dims, dt, "uniform")
    low, high = _bound(minval, dt, "uniform", "minval"), _bound(maxval, dt, "uniform", "maxval")
    return _uniform(key, dims, dt, low, high, "uniform")


def _normal_from(u: Tensor, dtype: DType) -> Tensor:
    """sqrt(2) erfinv(u) for u in (-1, 1), in `dtype`, as JAX computes it."""
    return erfinv(u) * float(np.sqrt(2, dtype=dtype.numpy))


def normal(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None) -> Tensor:
    """Standard normal samples of `shape` (float32 unless `dtype`) from `key`, as
    ``jax.random.normal``."""
    dims, dt = new_shape(shape, "normal"), _float_dtype(dtype, "normal")
    lo = np.nextafter(np.array(-1.0, dt.numpy), np.array(0.0, dt.numpy))
    u = _uniform(key, dims, dt, asarray(lo, dtype=dt), asarray(1.0, dtype=dt), "normal")
    return _normal_from(u, dt)


def truncated_normal(key: Tensor, lower: float, upper: float, shape: int | Sequence[int] | None = None,
                     dtype: Any = None) -> Tensor:
    """Standard normal samples conditioned on (lower, upper) (Python floats; -inf and inf
    allowed), of `shape` (default ()), as ``jax.random.truncated_normal``."""
    op = "truncated_normal"
    dims, dt = new_shape(() if shape is None else shape, op), _float_dtype(dtype, op)
    lo, hi = float(valid.number(lower, op, "lower")), float(valid.number(upper, op, "upper"))
    if not lo < hi:
        raise ShapeError(f"{op}: lower must be below upper, got lower={lo} and upper={hi}.")
    scale = float(np.sqrt(2, dtype=dt.numpy))
    a = math.erf(float(np.array(lo, dt.numpy) / dt.numpy.type(scale)))
    b = math.erf(float(np.array(hi, dt.numpy) / dt.numpy.type(scale)))
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
    return negative(log1p(negative(uniform(key, shape, _float_dtype(dtype, "exponential")))))


def gumbel(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = None) -> Tensor:
    """Standard Gumbel samples of `shape`, as ``jax.random.gumbel`` (mode "low"): -log(-log(u))."""
    dt = _float_dtype(dtype, "gumbel")
    u = uniform(key, shape, dt, minval=float(np.finfo(dt.numpy).tiny))
    return negative(log(negative(log(u))))


def _int_dtype(dtype: Any, op: str) -> DType:
    dt = default_int if dtype is None else valid.dtype(dtype, op)
    if not dt.is_integer:
        raise DTypeError(f"{op}: dtype must be an integer dtype, got {dt.name}; for floats use "
                         f"tp.random.uniform(key, shape, dtype, minval, maxval).")
    return dt


def _clipped(value: int, low: Any, high: Any) -> int:
    return min(max(value, int(low)), int(high))


def randint(key: Tensor, shape: int | Sequence[int], minval: int, maxval: int, dtype: Any = None) -> Tensor:
    """Integers in [minval, maxval) (ints; `minval` alone where maxval <= minval) of `shape` in
    `dtype` (int64 unless given), as ``jax.random.randint``: two draws of the dtype's width
    per number, reduced modulo the span."""
    op = "randint"
    dims, dt = new_shape(shape, op), _int_dtype(dtype, op)
    low, high = valid.integer(minval, op, "minval"), valid.integer(maxval, op, "maxval")
    info = np.iinfo(dt.numpy)
    sampled = dt if dt.itemsize >= 4 else _int_dtype("int32", op)
    sinfo = np.iinfo(sampled.numpy)
    if dt is not sampled:  # JAX samples 8- and 16-bit integers in 32 bits, bounds clipped to the dtype
        low, high = _clipped(low, info.min, info.max), _clipped(high, info.min, info.max + 1)
    out_of_range = high > sinfo.max
    low, high = _clipped(low, sinfo.min, sinfo.max), _clipped(high, sinfo.min, sinfo.max)
    nbits = sampled.itemsize * 8
    span = 1 if high <= low else (high - low + (1 if out_of_range else 0)) % 2**nbits
    key_parts(key, op)
    pair = split(key)
    unsigned = _UNSIGNED[nbits]
    higher = draw_bits(*key_parts(pair[..., 0, :], op), dims, unsigned, op)
    lower = draw_bits(*key_parts(pair[..., 1, :], op), dims, unsigned, op)
    if span == 0:  # the whole range of the dtype: XLA's x % 0 is x, so JAX's offset is `lower`
        offset = lower
    else:
        multiplier = (2 ** (nbits // 2) % span) ** 2 % 2**nbits % span
        offset = remainder(remainder(higher, span) * multiplier + remainder(lower, span), span)
    return astype(astype(offset, sampled) + low, dt)


def categorical(key: Tensor, logits: Any, axis: int = -1, shape: int | Sequence[int] | None = None) -> Tensor:
    """Class indices (int64) drawn from softmax(logits) along `axis`, as ``jax.random.categorical``
    (the Gumbel-max trick); `shape` defaults to the logits' shape without `axis`."""
    op = "categorical"
    x = to_float(logits)
    if x.ndim == 0:
        raise ShapeError(f"{op}: logits must have at least one axis (the classes), got a scalar.")
    ax = valid.integer(axis, op, "axis")
    if not -x.ndim <= ax < x.ndim:
        raise ShapeError(f"{op}: axis {ax} is out of range for logits of shape {x.shape}.")
    ax = ax - x.ndim if ax >= 0 else ax
    batch = x.shape[:x.ndim + ax] + x.shape[x.ndim + ax + 1:]
    dims = batch if shape is None else new_shape(shape, op)
    if dims[len(dims) - len(batch):] != batch:
        raise ShapeError(f"{op}: shape {dims} must end with the logits' shape without axis {axis}, {batch}.")
    prefix = dims[:len(dims) - len(batch)]
    noise_shape = list(dims[len(prefix):])
    noise_shape.insert(ax % x.ndim, x.shape[ax])
    noise = gumbel(key, (*prefix, *noise_shape), x.dtype)
    return argmax(noise + reshape(x, (1,) * len(prefix) + x.shape), axis=ax)


def permutation(key: Tensor, x: Any, axis: int = 0) -> Tensor:
    """`x` shuffled along `axis` (an int n: a shuffled arange(n)), as ``jax.random.permutation``:
    rounds of a stable sort by fresh 32-bit keys."""
    op = "permutation"
    if isinstance(x, Tensor) and x.ndim > 0:
        ax = valid.integer(axis, op, "axis")
        if not -x.ndim <= ax < x.ndim:
            raise ShapeError(f"{op}: axis {ax} is out of range for x of shape {x.shape}.")
        n = x.shape[ax]
    else:
        n = valid.size(x, op, "x")
    key_parts(key, op)
    if key.ndim != 1:
        raise ShapeError(f"{op}: key must be one key of shape (2,), got shape {key.shape}; use "
                         f"tp.vmap over a batch of keys.")
    rounds = math.ceil(3 * np.log(max(1, n)) / np.log(2**32 - 1))
    order = arange(n)
    for _ in range(rounds):
        pair = split(key)
        key, subkey = pair[0], pair[1]
        order = take(order, argsort(draw_bits(*key_parts(subkey, op), (n,), uint32, op), stable=True))
    if not (isinstance(x, Tensor) and x.ndim > 0):
        return order
    return take(x, order, axis=ax)
