"""The pooling layers: ``MaxPool1D/2D/3D`` and ``AvgPool1D/2D/3D`` (over ``tp.nn.max_pool`` and
``avg_pool``), ``GlobalAvgPool1D/2D/3D`` and ``GlobalMaxPool1D/2D/3D`` (a mean or max over the
spatial axes), ``AdaptiveAvgPool2D`` and ``AdaptiveMaxPool2D`` (torch's bins). Inputs are
channels-last (batch, spatial..., channels) unless ``data_format="channels_first"``; none
holds a variable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from tensorplug.core.tensor import Tensor
from tensorplug.families.manipulation.ops import concat, reshape
from tensorplug.families.pooling.ops import avg_pool, max_pool
from tensorplug.families.reductions.ops import max as reduce_max
from tensorplug.families.reductions.ops import mean
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers.inputs import as_input, expect_rank, spatial_layout
from tensorplug.models.module import Module

__all__ = ["AdaptiveAvgPool2D", "AdaptiveMaxPool2D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "MaxPool1D", "MaxPool2D", "MaxPool3D"]

Reduction = Callable[..., Tensor]


def _spatial_axes(rank: int, data_format: str) -> tuple[int, ...]:
    first = 1 if data_format == "channels_last" else 2
    return tuple(range(first, first + rank))


def _checked(x: Any, rank: int, data_format: str) -> Tensor:
    x = as_input(x)
    expect_rank(x.shape, rank + 2, spatial_layout(rank, data_format))
    return x


class _Pool(Module):
    """A max or average over windows of `pool_size` (default 2 on every spatial axis), moved by
    `strides` (default: pool_size), padding 'valid' or 'same' (Keras's: the odd pad at the end,
    and padding never counts in an average nor wins a max)."""

    rank: ClassVar[int] = 2
    pool: ClassVar[Callable[..., Tensor]]

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: str = "channels_last") -> None:
        self.pool_size = args.per_dim(pool_size, self.rank, self, "pool_size")
        self.strides = (self.pool_size if strides is None else
                        args.per_dim(strides, self.rank, self, "strides"))
        self.padding = args.padding(padding, self)
        self.data_format = args.data_format(data_format, self)

    def forward(self, x: Any) -> Tensor:
        """The pooled x."""
        x = _checked(x, self.rank, self.data_format)
        return type(self).pool(x, self.pool_size, self.strides, self.padding.upper(), self.data_format)


class _MaxPool(_Pool):
    pool = staticmethod(max_pool)


class _AvgPool(_Pool):
    pool = staticmethod(avg_pool)


class MaxPool1D(_MaxPool):
    """The max over windows of (batch, length, channels): (batch, new_length, channels)."""

    rank = 1


class MaxPool2D(_MaxPool):
    """The max over windows of (batch, height, width, channels) (default 2x2, stride 2)."""

    rank = 2


class MaxPool3D(_MaxPool):
    """The max over windows of (batch, depth, height, width, channels)."""

    rank = 3


class AvgPool1D(_AvgPool):
    """The mean over windows of (batch, length, channels); padding never counts in the mean."""

    rank = 1


class AvgPool2D(_AvgPool):
    """The mean over windows of (batch, height, width, channels) (default 2x2, stride 2);
    'same' padding never counts in the mean (Keras's)."""

    rank = 2


class AvgPool3D(_AvgPool):
    """The mean over windows of (batch, depth, height, width, channels)."""

    rank = 3


class _GlobalPool(Module):
    """A mean or max over every spatial axis: (batch, spatial..., channels) -> (batch,
    channels), or (batch, 1..., channels) with ``keepdims=True``."""

    rank: ClassVar[int] = 2
    reduce: ClassVar[Reduction]

    def __init__(self, data_format: str = "channels_last", keepdims: bool = False) -> None:
        self.data_format = args.data_format(data_format, self)
        self.keepdims = args.flag(keepdims, self, "keepdims")

    def forward(self, x: Any) -> Tensor:
        """The mean or max of x over its spatial axes."""
        x = _checked(x, self.rank, self.data_format)
        return type(self).reduce(x, axis=_spatial_axes(self.rank, self.data_format), keepdims=self.keepdims)


class _GlobalAvgPool(_GlobalPool):
    reduce = staticmethod(mean)


class _GlobalMaxPool(_GlobalPool):
    reduce = staticmethod(reduce_max)


class GlobalAvgPool1D(_GlobalAvgPool):
    """The mean over the length: (batch, length, channels) -> (batch, channels)."""

    rank = 1


class GlobalAvgPool2D(_GlobalAvgPool):
    """The mean over height and width: (batch, height, width, channels) -> (batch, channels)."""

    rank = 2


class GlobalAvgPool3D(_GlobalAvgPool):
    """The mean over depth, height and width: (batch, d, h, w, channels) -> (batch, channels)."""

    rank = 3


class GlobalMaxPool1D(_GlobalMaxPool):
    """The max over the length: (batch, length, channels) -> (batch, channels)."""

    rank = 1


class GlobalMaxPool2D(_GlobalMaxPool):
    """The max over height and width: (batch, height, width, channels) -> (batch, channels)."""

    rank = 2


class GlobalMaxPool3D(_GlobalMaxPool):
    """The max over depth, height and width: (batch, d, h, w, channels) -> (batch, channels)."""

    rank = 3


def adaptive_bins(size: int, out: int) -> list[tuple[int, int]]:
    """torch's adaptive pooling bins of an axis of `size` into `out`: [floor(i * size / out),
    ceil((i + 1) * size / out)) for each i."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_axis(x: Tensor, axis: int, out: int, reduce: Reduction) -> Tensor:
    """`reduce` over each adaptive bin of `axis`: one reshape when the bins tile the axis
    evenly, else one slice per bin."""
    size = x.shape[axis]
    if size % out == 0:
        split = reshape(x, (*x.shape[:axis], out, size // out, *x.shape[axis + 1:]))
        return reduce(split, axis=axis + 1)
    lead = (slice(None),) * axis
    return concat([reduce(x[lead + (slice(lo, hi),)], axis=axis, keepdims=True)
                   for lo, hi in adaptive_bins(size, out)], axis=axis)


class _AdaptivePool2D(Module):
    """A mean or max over `output_size` bins (an int or (height, width)) of each spatial axis, as
    torch's adaptive pooling: bin i of an axis of size n spans [floor(i * n / out),
    ceil((i + 1) * n / out)); (batch, h, w, channels) -> (batch, out_h, out_w, channels)."""

    reduce: ClassVar[Reduction]

    def __init__(self, output_size: Any, data_format: str = "channels_last") -> None:
        self.output_size = args.per_dim(output_size, 2, self, "output_size")
        self.data_format = args.data_format(data_format, self)

    def forward(self, x: Any) -> Tensor:
        """The mean or max of x over each bin."""
        x = _checked(x, 2, self.data_format)
        for axis, out in zip(_spatial_axes(2, self.data_format), self.output_size):
            x = _adaptive_axis(x, axis, out, type(self).reduce)
        return x


class AdaptiveAvgPool2D(_AdaptivePool2D):
    """The mean over each of output_size bins (torch's AdaptiveAvgPool2d, channels-last)."""

    reduce = staticmethod(mean)


class AdaptiveMaxPool2D(_AdaptivePool2D):
    """The max over each of output_size bins (torch's AdaptiveMaxPool2d, channels-last)."""

    reduce = staticmethod(reduce_max)
