"""Pooling kernels: MaxPool, AvgPool (2-D and 3-D, one n-d implementation through
``jax.lax.reduce_window``: the window spans every axis, size 1 on batch and channels), their
Grad kernels (``jax.vjp`` of the forward pass: XLA's select-and-scatter sends dy to each
window's first maximum, as the numpy backend does), MaxPoolWithArgmax, and Dilation2D with its
two backward kernels (the window's taps stacked, a loop over the few taps). Every attribute
shapes the computation: compiled once per value (``_jit.with_attrs``). Half floats average in
float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from tensorplug.kernel_helpers import avg_pool_divisor, output_sizes, pool_window, tap_slices, window_taps
from tensorplug_jax.kernels._jit import with_attrs

_STATIC = ("filter_size", "strides", "pad", "data_format")
Geometry = tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]


def _max(x: Any, geo: Geometry) -> Any:
    window, strides, pad = geo
    return lax.reduce_window(x, np.array(-np.inf, x.dtype), lax.max, window, strides, pad)


def _avg(x: Any, geo: Geometry) -> Any:
    window, strides, pad = geo
    wide = x.astype(jnp.float32) if x.dtype.itemsize < 4 else x
    total = lax.reduce_window(wide, np.array(0, wide.dtype), lax.add, window, strides, pad)
    return (total / avg_pool_divisor(x.shape, *geo).astype(wide.dtype)).astype(x.dtype)


def _max_pool(x: Any, **attrs: Any) -> Any:
    return _max(x, pool_window(x.ndim, **attrs))


def _avg_pool(x: Any, **attrs: Any) -> Any:
    return _avg(x, pool_window(x.ndim, **attrs))


def _max_pool_grad(dy: Any, x: Any, y: Any, **attrs: Any) -> Any:
    geo = pool_window(x.ndim, **attrs)
    return jax.vjp(lambda a: _max(a, geo), x)[1](dy)[0]


def _avg_pool_grad(dy: Any, x: Any, **attrs: Any) -> Any:
    geo = pool_window(x.ndim, **attrs)
    return jax.vjp(lambda a: _avg(a, geo), x)[1](dy)[0]


def _stacked_taps(padded: Any, window: tuple[int, ...], out: tuple[int, ...], strides: tuple[int, ...],
                  dil: tuple[int, ...] | None = None) -> Any:
    """The element under each tap of every window, stacked last: shape out + (taps,)."""
    return jnp.stack([padded[tap_slices(t, out, strides, dil)] for t in window_taps(window)], axis=-1)


def _max_pool_with_argmax(x: Any, filter_size: Any, strides: Any, pad: Any,
                          include_batch_in_index: bool) -> Any:
    window, steps, pairs = pool_window(x.ndim, "channels_last", filter_size, strides, pad)
    out = output_sizes(x.shape, window, steps, pairs)
    taps = _stacked_taps(jnp.pad(x, pairs, constant_values=-jnp.inf), window, out, steps)
    arg = jnp.argmax(taps, axis=-1)
    values = jnp.take_along_axis(taps, arg[..., None], axis=-1)[..., 0]
    offsets = jnp.unravel_index(arg, window)
    coords = [jnp.arange(m).reshape((1,) * a + (m,) + (1,) * (x.ndim - a - 1)) * s - lo + off
              for a, (m, s, (lo, _), off) in enumerate(zip(out, steps, pairs, offsets))]
    if not include_batch_in_index:
        coords[0] = jnp.zeros_like(coords[0])
    sizes = np.cumprod((1,) + x.shape[:0:-1])[::-1]  # row-major strides of x, in elements
    index = sum(jnp.clip(c, 0, n - 1).astype(jnp.int64) * int(k) for c, n, k in zip(coords, x.shape, sizes))
    return values, jnp.broadcast_to(index, out).astype(jnp.int64)


# -- Dilation2D -----------------------------------------------------------------------------------
def _dilation_taps(x: Any, f: Any, strides: Any, pad: Any,
                   dilations: Any) -> tuple[Any, Geometry, tuple[int, ...]]:
    """x + filter at every tap of every window, stacked last: shape output + (KH * KW,)."""
    window, steps, pairs = pool_window(4, "channels_last", f.shape[:2], strides, pad)
    dil = (1, *dilations, 1)
    out = output_sizes(x.shape, window, steps, pairs, dil)
    taps = _stacked_taps(jnp.pad(x, pairs, constant_values=-jnp.inf), window, out, steps, dil)
    return taps + f.reshape(-1, f.shape[2]).T, (window, steps, pairs), dil


def _dilation2d(x: Any, f: Any, **attrs: Any) -> Any:
    return jnp.max(_dilation_taps(x, f, **attrs)[0], axis=-1)


def _dilation2d_backprop_input(x: Any, f: Any, dy: Any, **attrs: Any) -> Any:
    taps, (window, steps, pairs), dil = _dilation_taps(x, f, **attrs)
    arg = jnp.argmax(taps, axis=-1)
    padded = jnp.zeros(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pairs)), dy.dtype)
    for t, tap in enumerate(window_taps(window)):
        padded = padded.at[tap_slices(tap, dy.shape, steps, dil)].add(jnp.where(arg == t, dy, 0))
    return padded[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, pairs))]


def _dilation2d_backprop_filter(x: Any, f: Any, dy: Any, **attrs: Any) -> Any:
    taps, _, _ = _dilation_taps(x, f, **attrs)
    arg = jnp.argmax(taps, axis=-1)
    wide = jnp.float64 if dy.dtype == jnp.float64 else jnp.float32
    picked = (arg[..., None] == jnp.arange(taps.shape[-1])) * dy[..., None].astype(wide)
    return picked.sum(axis=(0, 1, 2)).T.reshape(f.shape).astype(f.dtype)


_DILATION = ("strides", "pad", "dilations")
KERNELS: dict[str, Callable[..., Any]] = {
    **{f"MaxPool{s}": with_attrs(_max_pool, static=_STATIC) for s in ("", "3D")},
    **{f"AvgPool{s}": with_attrs(_avg_pool, static=_STATIC) for s in ("", "3D")},
    **{f"MaxPool{s}Grad": with_attrs(_max_pool_grad, static=_STATIC) for s in ("", "3D")},
    **{f"AvgPool{s}Grad": with_attrs(_avg_pool_grad, static=_STATIC) for s in ("", "3D")},
    "MaxPoolWithArgmax": with_attrs(_max_pool_with_argmax,
                                    static=("filter_size", "strides", "pad", "include_batch_in_index")),
    "Dilation2D": with_attrs(_dilation2d, static=_DILATION),
    "Dilation2DBackpropInput": with_attrs(_dilation2d_backprop_input, static=_DILATION),
    "Dilation2DBackpropFilter": with_attrs(_dilation2d_backprop_filter, static=_DILATION),
}
