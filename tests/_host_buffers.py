"""Numpy arrays laid out as tests of memory sharing need them."""

from __future__ import annotations

import numpy as np


def aligned(n: int, dtype: type = np.float64) -> np.ndarray:
    """A numpy array of arange(n) whose buffer is 64-byte aligned (what jax needs to alias host
    memory)."""
    item = np.dtype(dtype).itemsize
    raw = np.empty(n + 64 // item, dtype=dtype)
    offset = (-raw.ctypes.data % 64) // item
    out = raw[offset:offset + n]
    out[:] = np.arange(n)
    return out
