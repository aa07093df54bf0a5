"""Pooling kernels: MaxPool, AvgPool (2-D and 3-D, one n-d implementation: the window spans
every axis, size 1 on batch and channels), their Grad kernels, MaxPoolWithArgmax, and
Dilation2D with its two backward kernels.

The forward kernels reduce a ``sliding_window_view`` of the padded input (-inf pads a max, 0 an
average, which divides by the count of real elements). The backward kernels find each window's
first maximum (``argmax`` over its taps, row-major) and scatter with one vectorized update per
window tap (a loop over the few taps, never over output positions). Half floats average in
float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tensorplug.kernel_helpers import avg_pool_divisor, output_sizes, pool_window, tap_slices, window_taps

Geometry = tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]


def _geometry(x: np.ndarray, attrs: dict[str, Any]) -> Geometry:
    return pool_window(x.ndim, attrs.get("data_format", "channels_last"), attrs["filter_size"],
                       attrs["strides"], attrs["pad"])


def _reduce_windows(x: np.ndarray, geo: Geometry, fill: float, reduce: Any) -> np.ndarray:
    """`reduce` (np.max, np.sum) over each window of x padded with `fill`: a sliding window
    view over the axes the window spans (size-1 window axes, batch and channels, may be empty)."""
    window, strides, pad = geo
    padded = np.pad(x, pad, constant_values=fill) if any(lo or hi for lo, hi in pad) else x
    axes = tuple(a for a, k in enumerate(window) if k > 1)
    view = sliding_window_view(padded, [window[a] for a in axes], axis=axes) if axes else padded
    view = view[tuple(slice(None, None, s) for s in strides)]
    return reduce(view, axis=tuple(range(x.ndim, x.ndim + len(axes))))


def _first_max(x: np.ndarray, geo: Geometry) -> np.ndarray:
    """The tap (flat, row-major) of each window's first maximum; shape of the output: a running
    strict comparison over the taps' strided views (np.argmax over the taps, on either end of
    a stacked copy, is several times slower)."""
    window, strides, pad = geo
    padded = np.pad(x, pad, constant_values=-np.inf) if any(lo or hi for lo, hi in pad) else x
    out = output_sizes(x.shape, window, strides, pad)
    taps = [padded[tap_slices(tap, out, strides)] for tap in window_taps(window)]
    best = taps[0]
    arg = np.zeros(best.shape, np.int64 if len(taps) > 127 else np.int8)
    for t in range(1, len(taps)):
        np.copyto(arg, t, where=taps[t] > best)
        best = np.maximum(best, taps[t])
    return arg


def max_pool(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return _reduce_windows(x, _geometry(x, attrs), -np.inf, np.max)


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32) if x.dtype.itemsize < 4 else x


def avg_pool(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    geo = _geometry(x, attrs)
    total = _reduce_windows(_wide(x), geo, 0.0, np.sum)
    return (total / avg_pool_divisor(x.shape, *geo)).astype(x.dtype)


def _scatter(shape: tuple[int, ...], geo: Geometry, out_shape: tuple[int, ...],
             part: Callable[[int], np.ndarray], dtype: Any) -> np.ndarray:
    """An input-shaped array: the sum over taps t of part(t) placed at tap t of every window."""
    window, strides, pad = geo
    padded = np.zeros(tuple(n + lo + hi for n, (lo, hi) in zip(shape, pad)), dtype)
    for t, tap in enumerate(window_taps(window)):
        padded[tap_slices(tap, out_shape, strides)] += part(t)
    return padded[tuple(slice(lo, lo + n) for n, (lo, _) in zip(shape, pad))]


def max_pool_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, x = inputs[0], inputs[1]
    geo = _geometry(x, attrs)
    arg = _first_max(x, geo)
    zero = np.zeros((), dy.dtype)
    return _scatter(x.shape, geo, dy.shape, lambda t: np.where(arg == t, dy, zero), dy.dtype)


def avg_pool_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, x = inputs
    geo = _geometry(x, attrs)
    share = _wide(dy) / avg_pool_divisor(x.shape, *geo)
    return _scatter(x.shape, geo, dy.shape, lambda t: share, share.dtype).astype(dy.dtype)


def max_pool_with_argmax(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    geo = _geometry(x, attrs)
    window, strides, pad = geo
    values = _reduce_windows(x, geo, -np.inf, np.max)
    arg = _first_max(x, geo)
    offsets = np.unravel_index(arg, window)
    coords = [np.arange(m).reshape((1,) * a + (m,) + (1,) * (x.ndim - a - 1)) * s - lo + off
              for a, (m, s, (lo, _), off) in enumerate(zip(arg.shape, strides, pad, offsets))]
    if not attrs["include_batch_in_index"]:
        coords[0] = np.zeros_like(coords[0])
    index = np.ravel_multi_index(np.broadcast_arrays(*coords), x.shape, mode="clip")
    return values, index.astype(np.int64)


# -- Dilation2D: the window's taps are `dilations` apart, each adds its filter value ------------
def _dilation_taps(x: np.ndarray, f: np.ndarray,
                   attrs: dict[str, Any]) -> tuple[np.ndarray, Geometry, tuple[int, ...]]:
    """x + filter at every tap of every window, stacked last: shape output + (KH * KW,)."""
    window, strides, pad = pool_window(4, "channels_last", f.shape[:2], attrs["strides"], attrs["pad"])
    dil = (1, *attrs["dilations"], 1)
    out = output_sizes(x.shape, window, strides, pad, dil)
    padded = np.pad(x, pad, constant_values=-np.inf)
    taps = [padded[tap_slices(tap, out, strides, dil)] + f[tap[1], tap[2]] for tap in window_taps(window)]
    return np.stack(taps, axis=-1), (window, strides, pad), dil


def dilation2d(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, f = inputs
    taps, _, _ = _dilation_taps(x, f, attrs)
    return taps.max(axis=-1)


def dilation2d_backprop_input(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, f, dy = inputs
    taps, (window, strides, pad), dil = _dilation_taps(x, f, attrs)
    arg = taps.argmax(axis=-1)
    padded = np.zeros(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pad)), dy.dtype)
    zero = np.zeros((), dy.dtype)
    for t, tap in enumerate(window_taps(window)):
        padded[tap_slices(tap, dy.shape, strides, dil)] += np.where(arg == t, dy, zero)
    return padded[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, pad))]


def dilation2d_backprop_filter(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, f, dy = inputs
    taps, _, _ = _dilation_taps(x, f, attrs)
    arg = taps.argmax(axis=-1)
    picked = (arg[..., None] == np.arange(taps.shape[-1])) * dy[..., None].astype(np.float64)
    return picked.sum(axis=(0, 1, 2)).T.reshape(f.shape).astype(f.dtype)


KERNELS: dict[str, Callable[..., Any]] = {
    **{f"MaxPool{s}": max_pool for s in ("", "3D")},
    **{f"AvgPool{s}": avg_pool for s in ("", "3D")},
    **{f"MaxPool{s}Grad": max_pool_grad for s in ("", "3D")},
    **{f"AvgPool{s}Grad": avg_pool_grad for s in ("", "3D")},
    "MaxPoolWithArgmax": max_pool_with_argmax,
    "Dilation2D": dilation2d,
    "Dilation2DBackpropInput": dilation2d_backprop_input,
    "Dilation2DBackpropFilter": dilation2d_backprop_filter,
}
