"""Pooling kernels: MaxPool, AvgPool (2-D and 3-D, one n-d implementation: the window spans
every axis, size 1 on batch and channels), their Grad kernels, MaxPoolWithArgmax, and
Dilation2D with its two backward kernels.

MaxPool is a running ``np.maximum`` over the window's strided tap slices, one spatial axis at a
time; AvgPool sums a ``sliding_window_view`` (0 pads, dividing by the count of real elements).
Pads are written into a preallocated buffer (-inf for a max). The backward kernels find each
window's first maximum (row-major) as boolean masks per tap and scatter with one vectorized
update per window tap (a loop over the few taps, never over output positions). Half floats
average in float32.
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


def _padded(x: np.ndarray, pad: tuple[tuple[int, int], ...], fill: float) -> np.ndarray:
    """x with `fill` around it: written into a preallocated buffer (np.pad's fixed cost is
    several times the copy at the demo's sizes)."""
    if not any(lo or hi for lo, hi in pad):
        return x
    out = np.full(tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pad)), fill, x.dtype)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, pad))] = x
    return out


def _reduce_windows(x: np.ndarray, geo: Geometry, fill: float, reduce: Any) -> np.ndarray:
    """`reduce` (np.sum) over each window of x padded with `fill`: a sliding window view over
    the axes the window spans (size-1 window axes, batch and channels, may be empty)."""
    window, strides, pad = geo
    padded = _padded(x, pad, fill)
    axes = tuple(a for a, k in enumerate(window) if k > 1)
    view = sliding_window_view(padded, [window[a] for a in axes], axis=axes) if axes else padded
    view = view[tuple(slice(None, None, s) for s in strides)]
    return reduce(view, axis=tuple(range(x.ndim, x.ndim + len(axes))))


def _window_max(x: np.ndarray, geo: Geometry) -> np.ndarray:
    """Each window's maximum, one axis at a time (a window's max is the max over its rows of
    the max along each row): a running np.maximum over the axis' k strided tap slices, so
    sum(k - 1) elementwise passes instead of a reduction over a sliding-window view."""
    window, strides, pad = geo
    if all(k == 1 for k in window):
        return x[tuple(slice(None, None, s) for s in strides)].copy()
    y = _padded(x, pad, -np.inf)
    out = output_sizes(x.shape, window, strides, pad)
    for a, (k, s) in enumerate(zip(window, strides)):
        before = (slice(None),) * a
        taps = [y[before + (slice(t, t + (out[a] - 1) * s + 1, s),)] for t in range(k)]
        y = taps[0] if k == 1 else np.maximum(taps[0], taps[1])
        for t in taps[2:]:
            np.maximum(y, t, out=y)
    return y


def _first_max_masks(x: np.ndarray, geo: Geometry) -> list[np.ndarray]:
    """Per window tap (row-major), where it holds its window's first maximum (output-shaped):
    the tap equals the window's maximum (NaN ignored, as TF.js's strict comparison does) and no
    earlier tap did. Plain boolean passes: numpy's masked ufuncs (`where=`) are 5-10x slower."""
    window, strides, pad = geo
    padded = _padded(x, pad, -np.inf)
    out = output_sizes(x.shape, window, strides, pad)
    slices = [tap_slices(tap, out, strides) for tap in window_taps(window)]
    best = padded[slices[0]].copy()
    for index in slices[1:]:
        np.fmax(best, padded[index], out=best)
    masks, taken = [], np.zeros(best.shape, bool)
    for index in slices:
        first = np.equal(padded[index], best)
        np.greater(first, taken, out=first)  # reaches the maximum and no earlier tap did
        np.logical_or(taken, first, out=taken)
        masks.append(first)
    return masks


def _first_max(x: np.ndarray, geo: Geometry) -> np.ndarray:
    """The tap (flat, row-major) of each window's first maximum; shape of the output."""
    masks = _first_max_masks(x, geo)
    arg = np.zeros(masks[0].shape, np.int64 if len(masks) > 127 else np.int8)
    for t, first in enumerate(masks[1:], 1):
        arg += np.multiply(first, t, dtype=arg.dtype)
    return arg


def max_pool(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return _window_max(x, _geometry(x, attrs))


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
    """dy, tap by tap, added where that tap is its window's first maximum."""
    dy, x = inputs[0], inputs[1]
    geo = _geometry(x, attrs)
    masks = _first_max_masks(x, geo)
    return _scatter(x.shape, geo, dy.shape, lambda t: dy * masks[t], dy.dtype)


def avg_pool_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, x = inputs
    geo = _geometry(x, attrs)
    share = _wide(dy) / avg_pool_divisor(x.shape, *geo)
    return _scatter(x.shape, geo, dy.shape, lambda t: share, share.dtype).astype(dy.dtype)


def max_pool_with_argmax(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    geo = _geometry(x, attrs)
    window, strides, pad = geo
    values = _window_max(x, geo)
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
