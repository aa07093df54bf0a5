"""Normalization kernels: FusedBatchNorm (the parameters broadcast against x; epsilon traced),
LRN and LRNGrad (TF's local response normalization over the last axis: window sums of squares
by ``jax.lax.reduce_window``; the attributes are static). Half floats compute in float32."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from tensorplug_jax.kernels._jit import with_attrs


def _wide(a: Any) -> Any:
    return a.astype(jnp.float32) if a.dtype.itemsize < 4 else a


def _fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: Any) -> Any:
    xw, scale, offset, mean, variance = (_wide(a) for a in (x, scale, offset, mean, variance))
    factor = scale / jnp.sqrt(variance + jnp.asarray(epsilon, variance.dtype))
    return ((xw - mean) * factor + offset).astype(x.dtype)


def _window_sum(a: Any, radius: int) -> Any:
    """The sum over a[..., c - radius:c + radius + 1] (zeros past the ends) for every c."""
    if radius == 0:
        return a
    window = (1,) * (a.ndim - 1) + (2 * radius + 1,)
    pad = ((0, 0),) * (a.ndim - 1) + ((radius, radius),)
    return lax.reduce_window(a, np.array(0, a.dtype), lax.add, window, (1,) * a.ndim, pad)


def _norm(x: Any, depth_radius: int, bias: float, alpha: float) -> Any:
    return bias + alpha * _window_sum(x * x, depth_radius)


def _lrn(x: Any, depth_radius: int, bias: float, alpha: float, beta: float) -> Any:
    xw = _wide(x)
    return (xw * _norm(xw, depth_radius, bias, alpha) ** -beta).astype(x.dtype)


def _lrn_grad(dy: Any, x: Any, y: Any, depth_radius: int, bias: float, alpha: float, beta: float) -> Any:
    """dy * N^-beta - 2 alpha beta x * S(dy * x * N^(-beta - 1)) (as the numpy backend)."""
    dyw, xw = _wide(dy), _wide(x)
    n = _norm(xw, depth_radius, bias, alpha)
    p = n ** -beta
    dx = dyw * p - 2 * alpha * beta * xw * _window_sum(dyw * xw * p / n, depth_radius)
    return dx.astype(dy.dtype)


_LRN = ("depth_radius", "bias", "alpha", "beta")
KERNELS: dict[str, Callable[..., Any]] = {
    "FusedBatchNorm": with_attrs(_fused_batch_norm, traced=("epsilon",)),
    "LRN": with_attrs(_lrn, static=_LRN),
    "LRNGrad": with_attrs(_lrn_grad, static=_LRN),
}
