"""Window arithmetic of the pooling kernels (MaxPool, AvgPool, their 3-D and Grad kernels,
MaxPoolWithArgmax, Dilation2D) and of the convolutions' layouts and transposes, public through
``tensorplug.kernel_helpers``: pure functions of shapes and attributes, so that every backend's
kernels share one copy.

A kernel treats its input as an n-d array and its window as n-d too: size 1, stride 1 and no
padding on the batch and channel axes. ``pool_window`` gives those full-rank tuples, so one
implementation serves 2-D and 3-D, channels last and first.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["avg_pool_divisor", "conv_channels_first", "conv_transpose_padding", "output_sizes", "pool_window",
           "tap_slices", "window_taps"]

Pairs = tuple[tuple[int, int], ...]


def pool_window(ndim: int, data_format: str, filter_size: Sequence[int], strides: Sequence[int],
                pad: Sequence[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[int, ...], Pairs]:
    """(window, strides, pad) over all `ndim` axes of an input laid out as `data_format`
    ('channels_last' or 'channels_first'), from the spatial attributes of a pooling kernel."""
    first = 1 if data_format == "channels_last" else 2
    window, steps, pairs = [1] * ndim, [1] * ndim, [(0, 0)] * ndim
    for i, (k, s, p) in enumerate(zip(filter_size, strides, pad)):
        window[first + i], steps[first + i], pairs[first + i] = k, s, (int(p[0]), int(p[1]))
    return tuple(window), tuple(steps), tuple(pairs)


def output_sizes(shape: Sequence[int], window: Sequence[int], strides: Sequence[int], pad: Pairs,
                 dilations: Sequence[int] | None = None) -> tuple[int, ...]:
    """The pooled shape, per axis floor((n + before + after - span) / stride) + 1."""
    dil = dilations or (1,) * len(shape)
    return tuple((n + lo + hi - (k - 1) * d - 1) // s + 1
                 for n, k, s, d, (lo, hi) in zip(shape, window, strides, dil, pad))


def window_taps(window: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The offsets of a window's taps, in row-major order (the order 'first maximum' means)."""
    return itertools.product(*(range(k) for k in window))


def tap_slices(tap: Sequence[int], out_shape: Sequence[int], strides: Sequence[int],
               dilations: Sequence[int] | None = None) -> tuple[slice, ...]:
    """Slices of the padded input holding, for every output position, the element under the
    window's tap at offset `tap` (full rank): start tap * dilation, step stride."""
    dil = dilations or (1,) * len(tap)
    return tuple(slice(t * d, t * d + (n - 1) * s + 1, s)
                 for t, d, n, s in zip(tap, dil, out_shape, strides))


def avg_pool_divisor(shape: Sequence[int], window: Sequence[int], strides: Sequence[int],
                     pad: Pairs) -> np.ndarray:
    """How many real (unpadded) input elements each window of an average pool covers, as a
    float64 array that broadcasts against the output (full rank; size 1 where the count is the
    same along an axis). TF's rule: padding is not counted."""
    out = output_sizes(shape, window, strides, pad)
    divisor = np.ones((1,) * len(shape))
    for axis, (n, k, s, (lo, _), m) in enumerate(zip(shape, window, strides, pad, out)):
        if k == 1 and lo == 0:
            divisor = divisor * k
            continue
        starts = np.arange(m) * s - lo
        count = np.minimum(starts + k, n) - np.maximum(starts, 0)
        divisor = divisor * count.reshape((1,) * axis + (m,) + (1,) * (len(shape) - axis - 1))
    return divisor


def conv_channels_first(data_format: str) -> bool:
    """Whether a convolution kernel's `data_format` ('NHWC', 'NCHW', 'NDHWC', 'NCDHW') puts
    the channels right after the batch axis."""
    return data_format[1] == "C"


def conv_transpose_padding(size: int, out_size: int, kernel: int, stride: int, dilation: int,
                           low: int) -> tuple[int, int]:
    """The (low, high) padding, either possibly negative (a crop), of the stride-dilated `out_size`
    gradient that a stride-1 correlation with the flipped kernel (`kernel` taps, `dilation`)
    turns into the `size` elements of the input a convolution padded by `low` in front read."""
    front = (kernel - 1) * dilation - low
    return front, size + (kernel - 1) * dilation - (out_size - 1) * stride - 1 - front
