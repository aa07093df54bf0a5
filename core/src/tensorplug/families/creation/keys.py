"""Random keys as JAX's (``jax.random.PRNGKey``, ``split``, ``fold_in``, ``bits``): a key is a
uint32 tensor of shape (2,), and the counter-based threefry2x32 hash (JAX's default, in its
"partitionable" layout: ``jax_threefry_partitionable``, on by default in jax 0.10) is the kernel
Threefry2x32 (a backend's own, or the generic one of ``threefry.py`` over its uint32 kernels), so
every backend gives the same bits as JAX itself, and keys work under ``tp.grad``, ``tp.vmap`` and
``tp.jit`` unchanged.

A key may carry leading batch axes, shape (..., 2): each function then acts per key, as
``jax.vmap`` over those axes would, with the batch axes first in its result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, uint8, uint16, uint32, uint64
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype, caller
from tensorplug.families.creation.ops import arange, new_shape
from tensorplug.families.elementwise.bitwise import (
    bitwise_left_shift,
    bitwise_or,
    bitwise_xor,
)
from tensorplug.families.manipulation.ops import reshape, stack

__all__ = ["key", "split", "fold_in", "bits", "threefry2x32", "key_parts", "single_key", "draw_bits"]

_MASK = 0xFFFFFFFF
_BITS_DTYPES = (uint8, uint16, uint32, uint64)
_THREEFRY = caller("Threefry2x32")


def threefry2x32(k1: Tensor, k2: Tensor, x1: Tensor | int, x2: Tensor | int) -> tuple[Tensor, Tensor]:
    """Threefry-2x32 with 20 rounds of the key pair (k1, k2) over the counter pairs (x1, x2):
    uint32 tensors (or ints in [0, 2**32)) that broadcast together; the two uint32 output words,
    as JAX's ``threefry2x32_p`` (the kernel Threefry2x32)."""
    words = [w if isinstance(w, Tensor) else asarray(np.uint32(w)) for w in (k1, k2, x1, x2)]
    a, b = _THREEFRY(words)
    return a, b


def key_parts(k: Any, op: str) -> tuple[Tensor, Tensor]:
    """The two words of key `k` (uint32 of shape (..., 2)), each of shape (...,); an ArgumentError,
    DTypeError or ShapeError naming `op` for anything else."""
    if not isinstance(k, Tensor):
        raise ArgumentError(f"{op}: key must be a key tensor, got {valid.shown(k)}; make one with "
                            f"tp.random.key(seed) (or split one with tp.random.split; a JAX key or "
                            f"an array of one: tp.asarray(it, dtype=tp.uint32)).")
    if k.dtype != uint32 or k.ndim == 0 or k.shape[-1] != 2:
        raise (DTypeError if k.dtype != uint32 else ShapeError)(
            f"{op}: key must be a uint32 tensor of shape (2,) (or (..., 2) for a batch of keys), got "
            f"dtype {k.dtype.name} and shape {k.shape}; make keys with tp.random.key(seed) and "
            f"tp.random.split(key, num).")
    return k[..., 0], k[..., 1]


def single_key(k: Any, op: str) -> None:
    """Checks that `k` is one key, shape (2,) (the samplers that draw per key, by JAX's loops);
    a ShapeError naming `op` and tp.vmap for a batch of keys."""
    key_parts(k, op)
    if k.ndim != 1:
        raise ShapeError(f"{op}: key must be one key of shape (2,), got shape {k.shape}; use "
                         f"tp.vmap over a batch of keys.")


def _counted(k1: Tensor, k2: Tensor, shape: tuple[int, ...], op: str) -> tuple[Tensor, Tensor]:
    """Threefry of each key over the 64-bit counters 0, 1, ..., laid out in `shape` (C order):
    JAX's ``iota_2x32_shape`` then ``threefry2x32_p``; results of shape (*key batch, *shape)."""
    size = math.prod(shape)
    if size >= 2**32:
        raise ShapeError(f"{op}: shape {shape} holds {size} numbers; keys draw at most 2**32 - 1 "
                         f"at once. Split the key and draw in parts.")
    if shape:
        lo = reshape(arange(size, dtype=uint32), shape)
        k1 = reshape(k1, k1.shape + (1,) * len(shape))
        k2 = reshape(k2, k2.shape + (1,) * len(shape))
    else:
        lo = asarray(np.uint32(0))
    return threefry2x32(k1, k2, 0, lo)


def key(seed: int) -> Tensor:
    """A key from an integer `seed` in [-2**63, 2**63): uint32 [high word, low word] of the
    64-bit seed, as ``jax.random.PRNGKey(seed)`` (with 64-bit mode for seeds past 32 bits)."""
    seed = valid.integer(seed, "key", "seed")
    if not -(2**63) <= seed < 2**63:
        raise ShapeError(f"key: seed must fit in 64 bits (-2**63 <= seed < 2**63), got "
                         f"{valid.shown(seed)}; pass a smaller seed.")
    seed %= 2**64
    return asarray(np.array([seed >> 32, seed & _MASK], dtype=np.uint32))


def split(key: Tensor, num: int | Sequence[int] = 2) -> Tensor:
    """`num` new keys from `key`, shape (num, 2) (or (*num, 2) for a tuple), as ``jax.random.split``."""
    k1, k2 = key_parts(key, "split")
    if isinstance(num, Sequence) and not isinstance(num, (str, bytes)):
        shape = valid.shape(num, "split", "num")
        if any(n < 1 for n in shape):
            raise ShapeError(f"split: num must be >= 1 in each axis, got {shape}; ask for at least one key.")
    else:
        shape = (valid.integer(num, "split", "num", minimum=1),)
    valid.checked_size(shape + (2,), key._backend, "split")
    a, b = _counted(k1, k2, shape, "split")
    return stack([a, b], axis=-1)


def fold_in(key: Tensor, data: int | Tensor) -> Tensor:
    """A new key from `key` and the integer `data` (an int in [0, 2**32) or a 0-d integer tensor,
    taken modulo 2**32), as ``jax.random.fold_in``."""
    k1, k2 = key_parts(key, "fold_in")
    if isinstance(data, Tensor):
        if data.ndim != 0 or not data.dtype.is_integer:
            raise DTypeError(f"fold_in: data must be an int or a 0-d integer tensor, got dtype "
                             f"{data.dtype.name} and shape {data.shape}; use tp.vmap over several data.")
        word = astype(data, uint32)
    else:
        value = valid.integer(data, "fold_in", "data")
        if not 0 <= value <= _MASK:
            raise ShapeError(f"fold_in: data must be in [0, 2**32), got {valid.shown(value)}; "
                             f"pass data % 2**32.")
        word = asarray(np.uint32(value))
    a, b = threefry2x32(k1, k2, 0, word)
    return stack([a, b], axis=-1)


def bits(key: Tensor, shape: int | Sequence[int] = (), dtype: Any = uint32) -> Tensor:
    """Uniform random bits of `shape` in the unsigned integer `dtype` (uint8, uint16, uint32 or
    uint64), as ``jax.random.bits``."""
    k1, k2 = key_parts(key, "bits")
    dims = new_shape(shape, "bits")
    dt = valid.dtype(dtype, "bits")
    return draw_bits(k1, k2, dims, dt, "bits")


def draw_bits(k1: Tensor, k2: Tensor, shape: tuple[int, ...], dtype: DType, op: str) -> Tensor:
    """The bits of ``bits`` from a key's words, for the distributions (`op` names the caller)."""
    if dtype not in _BITS_DTYPES:
        raise DTypeError(f"{op}: dtype must be an unsigned integer dtype (uint8, uint16, uint32 "
                         f"or uint64), got {dtype.name}; for floats use tp.random.uniform(key, shape).")
    a, b = _counted(k1, k2, shape, op)
    if dtype == uint64:
        return bitwise_or(bitwise_left_shift(astype(a, uint64), 32), astype(b, uint64))
    word = bitwise_xor(a, b)
    return word if dtype == uint32 else astype(word, dtype)
