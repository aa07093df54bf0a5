"""Creation kernels: Fill, Range, Eye, RandomUniform, RandomNormal (seeded numpy Generators), and
Threefry2x32 (the hash of random keys: fused, in place, in cache-sized chunks).

Every kernel builds its values in the dtype of ``attrs["dtype"]``; the random kernels draw in
that dtype directly, so float32 samples keep their full float32 resolution and the same seed
gives the same values on every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import range_dtype, range_length
from tensorplug.kernel_helpers.random_constants import THREEFRY_PARITY, THREEFRY_ROTATIONS


def fill(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    return np.full(attrs["shape"], attrs["value"], dtype=attrs["dtype"].numpy)


def range_(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    """start + step * i for i < ceil((stop - start) / step): the spec's length exactly.

    Integer arguments are computed in int64, others in float64, then cast once: numpy's own
    ``arange(..., dtype=int)`` with a fractional step repeats its first value instead. The
    multiply is skipped for a step of 1 and the add for a start of 0 (the same values); counting
    0, 1, ... in a dtype that holds every count exactly is numpy's ``arange`` in that dtype."""
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    n = range_length(start, stop, step)
    dtype = attrs["dtype"].numpy
    wide = range_dtype(start, stop, step)
    if wide.kind == "i" and start == 0 and step == 1 and _counts_exactly(dtype, n):
        return np.arange(n, dtype=dtype)
    steps = np.arange(n, dtype=wide)
    if step != 1:
        steps *= step
    if start != 0:
        steps += start
    return steps.astype(dtype, copy=False)


def _counts_exactly(dtype: np.dtype, n: int) -> bool:
    """Whether `dtype` holds each of 0, 1, ..., n - 1 exactly (then ``np.arange(n, dtype)`` is
    the count in int64 cast to `dtype`)."""
    if dtype.kind in "iu":
        return n - 1 <= np.iinfo(dtype).max
    if dtype.kind == "f":
        return n - 1 <= 2 ** (np.finfo(dtype).nmant + 1)
    return False


def eye(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    return np.eye(attrs["n_rows"], attrs["n_cols"], k=attrs["k"], dtype=attrs["dtype"].numpy)


def _generator(seed: int) -> np.random.Generator:
    # numpy refuses negative seeds; give them their own streams rather than an error
    return np.random.default_rng(seed if seed >= 0 else (-seed, 1))


def _drawn(dtype: np.dtype) -> np.dtype:
    """The dtype numpy's Generator draws in: float32 for float16 and bfloat16 (it has no others)."""
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)


def random_uniform(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    """Samples in [low, high): drawn in the target dtype, and kept below `high` where rounding
    low + (high - low) * u would reach it."""
    dtype = attrs["dtype"].numpy
    low, high = attrs["low"], attrs["high"]
    u = _generator(attrs["seed"]).random(attrs["shape"], dtype=_drawn(dtype))
    out = np.asarray(low + (high - low) * u, dtype=dtype)
    if high > low:
        top = np.nextafter(dtype.type(high), dtype.type(low))
        np.minimum(out, top, out=out)
    return out


def random_normal(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    dtype = attrs["dtype"].numpy
    z = _generator(attrs["seed"]).standard_normal(attrs["shape"], dtype=_drawn(dtype))
    return np.asarray(z * attrs["stddev"] + attrs["mean"], dtype=dtype)


#: counter pairs hashed per chunk: two uint32 words and a scratch word of 2**16 elements (768 KiB)
#: stay in a core's L2 cache through the 20 rounds
_CHUNK = 2**16


def _flat_word(word: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A key word as the hash uses it: a uint32 scalar if it holds one value (it then broadcasts
    for free), else its values broadcast to `shape` and flattened (a batch of keys)."""
    if word.size == 1:
        return word.reshape(())
    return np.ascontiguousarray(np.broadcast_to(word, shape)).reshape(-1)


def threefry2x32(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32, 20 rounds, of the key words (k1, k2) over the counter words (x1, x2),
    uint32 arrays that broadcast together; the two output words (bit for bit JAX's).

    Written in place with numpy's ufuncs (``out=``, ``+=``: uint32 adds wrap), one chunk of
    ``_CHUNK`` elements at a time through all 20 rounds: on 10**6 counters the ~100 passes of the
    rounds then read and write the cache, not memory (~2x faster than whole-array passes, and
    ~10x faster than one fresh array per operation)."""
    k1, k2, x1, x2 = inputs
    shape = np.broadcast_shapes(k1.shape, k2.shape, x1.shape, x2.shape)
    a, b = np.empty(shape, np.uint32), np.empty(shape, np.uint32)
    np.add(k1, x1, out=a)
    np.add(k2, x2, out=b)
    k3 = np.bitwise_xor(np.bitwise_xor(k1, k2), np.uint32(THREEFRY_PARITY))
    schedule = [_flat_word(k, shape) for k in (k1, k2, k3)]
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    scratch = np.empty(min(a.size, _CHUNK), np.uint32)
    for start in range(0, a.size, _CHUNK):
        x, y = flat_a[start:start + _CHUNK], flat_b[start:start + _CHUNK]
        t = scratch[:len(x)]
        keys = [k if k.ndim == 0 else k[start:start + _CHUNK] for k in schedule]
        for group in range(5):
            for r in THREEFRY_ROTATIONS[group % 2]:
                x += y
                np.left_shift(y, r, out=t)
                y >>= 32 - r
                y |= t
                y ^= x
            x += keys[(group + 1) % 3]
            y += keys[(group + 2) % 3]
            y += group + 1
    return a, b


KERNELS: dict[str, Callable[..., Any]] = {
    "Fill": fill,
    "Range": range_,
    "Eye": eye,
    "RandomUniform": random_uniform,
    "RandomNormal": random_normal,
    "Threefry2x32": threefry2x32,
}
