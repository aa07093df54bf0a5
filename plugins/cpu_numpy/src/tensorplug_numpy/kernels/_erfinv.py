"""The Erfinv kernel's arithmetic: XLA's ErfInv (the polynomials of
``tensorplug.kernel_helpers.random_constants`` in w = -log1p(-x * x)), fused and in place."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensorplug.kernel_helpers.random_constants import (
    ERFINV_F32_ABOVE_5,
    ERFINV_F32_BELOW_5,
    ERFINV_F64_ABOVE_16,
    ERFINV_F64_BELOW_6_25,
    ERFINV_F64_BELOW_16,
)

__all__ = ["erfinv"]

#: elements per chunk: the input, the output and a scratch array of 2**16 floats stay in cache
_CHUNK = 2**16


def _horner(coefficients: Sequence[float], w: np.ndarray, out: np.ndarray) -> np.ndarray:
    """coefficients[0] w^n + ... + coefficients[n] into `out`, in w's dtype (the coefficients
    are Python floats: they take it)."""
    np.multiply(w, coefficients[0], out=out)
    out += coefficients[1]
    for c in coefficients[2:]:
        out *= w
        out += c
    return out


def _tail(w: np.ndarray) -> np.ndarray:
    """p(w) where w is past the common region (w >= 5 in float32, >= 6.25 in float64)."""
    root = np.sqrt(w)
    if w.dtype == np.float32:
        return _horner(ERFINV_F32_ABOVE_5, root - 3.0, np.empty_like(w))
    return np.where(w < 16.0, _horner(ERFINV_F64_BELOW_16, root - 3.25, np.empty_like(w)),
                    _horner(ERFINV_F64_ABOVE_16, root - 5.0, np.empty_like(w)))


def _chunk(x: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    """erfinv(x) into `out`: the common region's polynomial on every element, the tails'
    only on the few elements past it (|x| > 0.9966 in float32), +-inf at +-1."""
    w = out
    np.multiply(x, x, out=w)
    np.negative(w, out=w)
    np.log1p(w, out=w)
    np.negative(w, out=w)  # w = -log1p(-x * x): inf at +-1, nan beyond and for nan
    split, shift, common = ((5.0, 2.5, ERFINV_F32_BELOW_5) if x.dtype == np.float32
                            else (6.25, 3.125, ERFINV_F64_BELOW_6_25))
    far = np.flatnonzero(w >= split)
    w_far = w[far]
    w -= shift
    p = _horner(common, w, scratch)
    if far.size:
        p_far = _tail(w_far)
        p_far[w_far == np.inf] = np.inf  # (|x| == 1: x * inf, as XLA gives it)
        p[far] = p_far
    np.multiply(p, x, out=out)


def erfinv(x: np.ndarray) -> np.ndarray:
    """erf^-1(x) elementwise, as XLA computes it (float16 and bfloat16 in float32, cast back).

    One pass over chunks of ``_CHUNK`` elements, each through all its ~25 in-place steps while
    it is in cache (the rounds of the polynomial would otherwise each read and write memory)."""
    if x.dtype not in (np.float32, np.float64):
        return erfinv(x.astype(np.float32)).astype(x.dtype)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(x.shape, x.dtype)
    flat_out = out.reshape(-1)
    scratch = np.empty(min(flat.size, _CHUNK), x.dtype)
    for start in range(0, flat.size, _CHUNK):
        part = flat[start:start + _CHUNK]
        _chunk(part, flat_out[start:start + _CHUNK], scratch[:part.size])
    return out
