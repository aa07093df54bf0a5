"""Discrete draws from a key, as their ``jax.random`` namesakes make them from the same bits:
``randint``, ``categorical``, ``permutation``, ``choice``: the same numbers on every backend and
JAX's. Integer results default to int64 (tensorplug's default int): JAX's with
``jax_enable_x64`` (randint draws as many bits as its dtype is wide)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, default_int, int32, uint8, uint16, uint32, uint64
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype, to_float
from tensorplug.families.creation.key_samplers import gumbel, uniform
from tensorplug.families.creation.keys import draw_bits, key_parts, single_key, split
from tensorplug.families.creation.ops import arange, full_like, new_shape
from tensorplug.families.elementwise.ops import (
    clip,
    equal,
    greater,
    less_equal,
    log,
    logical_and,
    logical_not,
    remainder,
    where,
)
from tensorplug.families.indexing.ops import take, take_along_axis
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.reductions.ops import argmax, cumulative_sum
from tensorplug.families.sorting.ops import argsort, searchsorted
from tensorplug.families.structure.ops import broadcast_shapes, top_k

__all__ = ["randint", "categorical", "permutation", "choice"]

_UNSIGNED = {8: uint8, 16: uint16, 32: uint32, 64: uint64}


def _int_dtype(dtype: Any, op: str) -> DType:
    dt = default_int if dtype is None else valid.dtype(dtype, op)
    if not dt.is_integer:
        raise DTypeError(f"{op}: dtype must be an integer dtype, got {dt.name}; for floats use "
                         f"tp.random.uniform(key, shape, dtype, minval, maxval).")
    return dt


def _clipped(value: int, low: Any, high: Any) -> int:
    return min(max(value, int(low)), int(high))


def _bound(value: Any, limits: tuple[int, int] | None, op: str, arg: str) -> Tensor:
    """An integer bound tensor as JAX takes it: floats truncated to int64; with `limits` (8- and
    16-bit dtypes, sampled in 32 bits) wrapped to int32 and clipped to them."""
    bound = value if isinstance(value, Tensor) else asarray(value)
    if bound.dtype.is_floating:
        bound = astype(bound, default_int)
    if not bound.dtype.is_integer:
        raise DTypeError(f"{op}: {arg} must hold integers, got dtype {bound.dtype.name}; pass ints or "
                         f"integer tensors.")
    return bound if limits is None else clip(astype(bound, int32), *limits)


def _in_dtype(bound: Tensor, dtype: DType) -> Tensor:
    """JAX's ``_convert_and_clip_integer``: clipped to `dtype`'s range, then converted."""
    ours, theirs = np.iinfo(bound.dtype.numpy), np.iinfo(dtype.numpy)
    low, high = max(int(ours.min), int(theirs.min)), min(int(ours.max), int(theirs.max))
    return astype(clip(bound, low, high), dtype)


def _rem(x: Tensor, span: Tensor) -> Tensor:
    """x % span, with XLA's x % 0 = x (numpy's is 0)."""
    zero = equal(span, 0)
    return where(zero, x, remainder(x, where(zero, 1, span)))


def randint(key: Tensor, shape: int | Sequence[int], minval: Any, maxval: Any, dtype: Any = None) -> Tensor:
    """Integers in [minval, maxval) (ints or integer tensors broadcast to `shape`; `minval`
    where maxval <= minval) of `shape` in `dtype` (int64 unless given), as
    ``jax.random.randint``: two draws of the dtype's width per number, reduced modulo the span."""
    op = "randint"
    dims, dt = new_shape(shape, op), _int_dtype(dtype, op)
    single = not any(isinstance(v, Tensor) or getattr(v, "ndim", 0) for v in (minval, maxval))
    sampled = dt if dt.itemsize >= 4 else int32
    info, sinfo = np.iinfo(dt.numpy), np.iinfo(sampled.numpy)
    nbits = sampled.itemsize * 8
    key_parts(key, op)
    pair = split(key)
    unsigned = _UNSIGNED[nbits]
    higher = draw_bits(*key_parts(pair[..., 0, :], op), dims, unsigned, op)
    lower = draw_bits(*key_parts(pair[..., 1, :], op), dims, unsigned, op)
    if single:  # Python ints: the span and its multiplier in Python
        low, high = valid.integer(minval, op, "minval"), valid.integer(maxval, op, "maxval")
        if dt is not sampled:  # JAX samples 8- and 16-bit integers in 32 bits, bounds clipped to the dtype
            low, high = _clipped(low, info.min, info.max), _clipped(high, info.min, info.max + 1)
        out_of_range = high > sinfo.max
        low, high = _clipped(low, sinfo.min, sinfo.max), _clipped(high, sinfo.min, sinfo.max)
        span = 1 if high <= low else (high - low + (1 if out_of_range else 0)) % 2**nbits
        if span == 0:  # the whole range of the dtype: XLA's x % 0 is x, so JAX's offset is `lower`
            return astype(astype(lower, sampled) + low, dt)
        multiplier = (2 ** (nbits // 2) % span) ** 2 % 2**nbits % span
        offset = remainder(remainder(higher, span) * multiplier + remainder(lower, span), span)
        return astype(astype(offset, sampled) + low, dt)
    small = dt is not sampled
    lo_t = _bound(minval, (int(info.min), int(info.max)) if small else None, op, "minval")
    hi_t = _bound(maxval, (int(info.min), int(info.max) + 1) if small else None, op, "maxval")
    try:
        fits = broadcast_shapes(dims, lo_t.shape, hi_t.shape) == dims
    except ShapeError:
        fits = False
    if not fits:
        raise ShapeError(f"{op}: minval of shape {lo_t.shape} and maxval of shape {hi_t.shape} must "
                         f"broadcast to shape {dims}; pass bounds of shapes that do, or a larger shape.")
    beyond = greater(hi_t, min(int(sinfo.max), int(np.iinfo(hi_t.dtype.numpy).max)))
    lo_t, hi_t = _in_dtype(lo_t, sampled), _in_dtype(hi_t, sampled)
    empty = less_equal(hi_t, lo_t)
    span = where(empty, 1, astype(hi_t - lo_t, unsigned))
    span = where(logical_and(beyond, logical_not(empty)), span + 1, span)
    multiplier = _rem(full_like(span, 2 ** (nbits // 2)), span)
    multiplier = _rem(multiplier * multiplier, span)
    offset = _rem(_rem(higher, span) * multiplier + _rem(lower, span), span)
    return astype(lo_t + astype(offset, sampled), dt)


def categorical(key: Tensor, logits: Any, axis: int = -1, shape: int | Sequence[int] | None = None) -> Tensor:
    """Class indices (int64) drawn from softmax(logits) along `axis`, as ``jax.random.categorical``
    (the Gumbel-max trick); `shape` defaults to the logits' shape without `axis`."""
    op = "categorical"
    x = to_float(logits)
    if x.ndim == 0:
        raise ShapeError(f"{op}: logits must have at least one axis (the classes), got a scalar; pass "
                         f"one logit per class.")
    ax = valid.integer(axis, op, "axis")
    if not -x.ndim <= ax < x.ndim:
        raise ShapeError(f"{op}: axis {ax} is out of range for logits of shape {x.shape}; pass an axis "
                         f"in [-{x.ndim}, {x.ndim}).")
    ax = ax - x.ndim if ax >= 0 else ax
    batch = x.shape[:x.ndim + ax] + x.shape[x.ndim + ax + 1:]
    dims = batch if shape is None else new_shape(shape, op)
    if dims[len(dims) - len(batch):] != batch:
        raise ShapeError(f"{op}: shape {dims} must end with the logits' shape without axis {axis}, "
                         f"{batch}; pass shape=None for one draw per distribution.")
    prefix = dims[:len(dims) - len(batch)]
    noise_shape = list(dims[len(prefix):])
    noise_shape.insert(ax % x.ndim, x.shape[ax])
    noise = gumbel(key, (*prefix, *noise_shape), x.dtype)
    return argmax(noise + reshape(x, (1,) * len(prefix) + x.shape), axis=ax)


def _population(x: Any, axis: int, op: str) -> tuple[Tensor | None, int, int]:
    """(the array, its length along `axis`, the axis) of an array `x`; (None, x, 0) for an int."""
    if not isinstance(x, Tensor) and not hasattr(x, "__index__"):
        x = asarray(x)
    if isinstance(x, Tensor) and x.ndim > 0:
        ax = valid.integer(axis, op, "axis")
        if not -x.ndim <= ax < x.ndim:
            raise ShapeError(f"{op}: axis {ax} is out of range for an array of shape {x.shape}; pass an "
                             f"axis in [-{x.ndim}, {x.ndim}).")
        return x, x.shape[ax], ax % x.ndim
    return None, valid.size(x, op, "x" if op == "permutation" else "a"), 0


def _shuffle(key: Tensor, x: Tensor, axis: int, op: str) -> Tensor:
    """`x` shuffled along `axis` as JAX's ``_shuffle``: rounds (more for larger x) of a stable
    sort by fresh 32-bit keys of x's shape, so each vector along `axis` moves on its own."""
    rounds = math.ceil(3 * np.log(max(1, x.size)) / np.log(2**32 - 1))
    for _ in range(rounds):
        pair = split(key)
        key, subkey = pair[0], pair[1]
        sort_keys = draw_bits(*key_parts(subkey, op), x.shape, uint32, op)
        x = take_along_axis(x, argsort(sort_keys, axis=axis, stable=True), axis=axis)
    return x


def permutation(key: Tensor, x: Any, axis: int = 0, independent: bool = False) -> Tensor:
    """`x` shuffled along `axis` (an int n: a shuffled arange(n)), as ``jax.random.permutation``;
    `independent`: each vector along `axis` in its own order (else all in one)."""
    op = "permutation"
    single_key(key, op)
    arr, n, ax = _population(x, axis, op)
    if arr is None:
        return _shuffle(key, arange(n), 0, op)
    if valid.flag(independent, op, "independent") or arr.ndim == 1:
        return _shuffle(key, arr, ax, op)
    return take(arr, _shuffle(key, arange(n), 0, op), axis=ax)


def choice(key: Tensor, a: Any, shape: Sequence[int] = (), replace: bool = True, p: Any = None,
           axis: int = 0) -> Tensor:
    """Draws from `a` (an int n: from arange(n)) along `axis`, with or without replacement,
    uniformly or with probabilities `p`, as ``jax.random.choice``: shape `shape` for an int,
    else `a`'s with `axis` replaced by `shape`."""
    op = "choice"
    single_key(key, op)
    arr, n, ax = _population(a, axis, op)
    dims = new_shape(shape, op)
    replace = valid.flag(replace, op, "replace")
    draws = math.prod(dims)
    out_shape = dims if arr is None else arr.shape[:ax] + dims + arr.shape[ax + 1:]
    if draws == 0:
        return reshape(arange(0) if arr is None else take(arr, arange(0), axis=ax), out_shape)
    if n == 0:
        raise ShapeError(f"{op}: a is empty; draws need at least one element to draw from.")
    if not replace and draws > n:
        raise ShapeError(f"{op}: cannot take {draws} draws from {n} elements without replacement; "
                         f"pass replace=True or fewer draws.")
    if p is None:
        if replace:
            index = randint(key, dims, 0, n)
        else:
            index = _shuffle(key, arange(n), 0, op)[:draws]
    else:
        prob = to_float(p)
        if prob.shape != (n,):
            raise ShapeError(f"{op}: p must be None or of shape ({n},), a's length along axis {axis}; "
                             f"got shape {prob.shape}. Pass one probability per element.")
        if replace:
            total = cumulative_sum(prob)
            index = searchsorted(total, total[-1] * (1.0 - uniform(key, dims, prob.dtype)))
        else:
            index = top_k(gumbel(key, (n,), prob.dtype) + log(prob), draws)[1]
    if arr is None:
        return reshape(index, out_shape)
    return reshape(take(arr, reshape(index, (draws,)), axis=ax), out_shape)
