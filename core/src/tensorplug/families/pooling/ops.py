"""Pooling ops (Flax's functional signatures), public in ``tp.nn``: max_pool, avg_pool (1-, 2- or
3-D by the window's length; 1-D runs the 2-D kernel over a unit axis), max_pool_with_argmax,
and dilation2d (grayscale morphological dilation)."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, caller, to_float
from tensorplug.families.manipulation.ops import expand_dims, squeeze
from tensorplug.families.pooling.spec import (
    DATA_FORMATS,
    dilation_shape,
    padding_pairs,
    pooled_shape,
    spatial_axes,
)

__all__ = ["avg_pool", "dilation2d", "max_pool", "max_pool_with_argmax"]

_KERNELS = {("max", 2): caller("MaxPool"), ("max", 3): caller("MaxPool3D"),
            ("avg", 2): caller("AvgPool"), ("avg", 3): caller("AvgPool3D")}
_WITH_ARGMAX = caller("MaxPoolWithArgmax")
_DILATION = caller("Dilation2D")


def _per_axis(value: Any, rank: int, op: str, arg: str) -> tuple[int, ...]:
    """An int (the same on every spatial axis) or one int per spatial axis, each >= 1 (a
    negative one is refused as a zero is)."""
    try:
        sizes = valid.shape(value, op, arg)
    except ShapeError:  # (a negative entry)
        raise ShapeError(f"{op}: {arg} must be >= 1 on every axis, got {valid.shown(value)}.") from None
    if len(sizes) == 1 and rank > 1 and not isinstance(value, (tuple, list)):
        sizes = sizes * rank
    if len(sizes) != rank:
        raise ShapeError(f"{op}: {arg} {sizes} has {len(sizes)} entries for {rank} spatial axes; give "
                         "one per spatial axis (or one int for all).")
    if any(s < 1 for s in sizes):
        raise ShapeError(f"{op}: {arg} must be >= 1 on every axis, got {valid.shown(value)}.")
    return sizes


def _data_format(value: Any, op: str) -> str:
    if not isinstance(value, str) or value not in DATA_FORMATS:
        raise ArgumentError(f"{op}: data_format must be 'channels_last' or 'channels_first', got "
                            f"{valid.shown(value)}.")
    return value


def _float_input(x: Any, op: str, promote: bool) -> Tensor:
    x = asarray(x)
    if x._dtype.is_floating:
        return x
    if promote and not x._dtype.is_complex:
        return to_float(x)
    raise DTypeError(f"{op}: x must be a real floating tensor, got {x._dtype.name}; cast it first, "
                     "e.g. x.astype(tp.float32).")


def _pool(kind: str, op: str, x: Any, window_shape: Any, strides: Any, padding: Any,
          data_format: Any) -> Tensor:
    x = _float_input(x, op, promote=kind == "avg")
    if isinstance(window_shape, (tuple, list)):
        rank = len(_per_axis(window_shape, len(window_shape), op, "window_shape"))
        if rank not in (1, 2, 3):
            raise ShapeError(f"{op}: window_shape {tuple(window_shape)} has {rank} entries; pooling is "
                             "1-, 2- or 3-D.")
    else:  # one int: that size on every spatial axis of x
        rank = x.ndim - 2
        if rank not in (1, 2, 3):
            raise ShapeError(f"{op}: x has shape {x.shape}; pooling takes (batch, 1 to 3 spatial axes, "
                             "channels).")
    window = _per_axis(window_shape, rank, op, "window_shape")
    steps = (1,) * rank if strides is None else _per_axis(strides, rank, op, "strides")
    data_format = _data_format(data_format, op)
    if x.ndim != rank + 2:
        raise ShapeError(f"{op}: x must be {rank + 2}-d for a {rank}-D window (batch, {rank} spatial "
                         f"axes, channels), got shape {x.shape}.")
    axes = spatial_axes(x.ndim, data_format)
    pad = padding_pairs([x.shape[a] for a in axes], window, steps, padding, op)
    attrs = {"filter_size": window, "strides": steps, "pad": pad, "data_format": data_format}
    pooled_shape(x.shape, rank, attrs, op)  # the spec's rule, for the op's own message
    if rank > 1:
        return _KERNELS[(kind, rank)]((x,), attrs)
    unit = axes[0]  # 1-D: a unit spatial axis in front of the real one
    attrs = {"filter_size": (1, *window), "strides": (1, *steps), "pad": ((0, 0), *pad),
             "data_format": data_format}
    return squeeze(_KERNELS[(kind, 2)]((expand_dims(x, axis=unit),), attrs), axis=unit)


def max_pool(x: Any, window_shape: Any, strides: Any = None, padding: Any = "VALID",
             data_format: str = "channels_last") -> Tensor:
    """The maximum over each window of x (batch, *spatial, channels) for 'channels_last', or
    (batch, channels, *spatial); windows of 1, 2 or 3 spatial axes (window_shape and strides:
    one int per spatial axis, or one int for every axis of x); strides default to 1; padding
    'VALID', 'SAME' or one (before, after) pair per spatial axis (padding never wins)."""
    return _pool("max", "max_pool", x, window_shape, strides, padding, data_format)


def avg_pool(x: Any, window_shape: Any, strides: Any = None, padding: Any = "VALID",
             data_format: str = "channels_last") -> Tensor:
    """The mean over each window of x (as max_pool); padded windows divide by the count of real
    elements they cover (TF's rule for 'SAME'), so padding never dilutes the mean."""
    return _pool("avg", "avg_pool", x, window_shape, strides, padding, data_format)


def max_pool_with_argmax(x: Any, window_shape: Any, strides: Any = None, padding: Any = "VALID",
                         include_batch_in_index: bool = False) -> tuple[Tensor, Tensor]:
    """2-D max pooling of x (batch, height, width, channels) and, per output, the int64 flat
    index of its window's first maximum in x: (y * W + x) * C + c, plus b * H * W * C with
    `include_batch_in_index` (TF's MaxPoolWithArgmax)."""
    op = "max_pool_with_argmax"
    x = _float_input(x, op, promote=False)
    window = _per_axis(window_shape, 2, op, "window_shape")
    steps = (1, 1) if strides is None else _per_axis(strides, 2, op, "strides")
    if x.ndim != 4:
        raise ShapeError(f"{op}: x must be 4-d (batch, height, width, channels), got shape {x.shape}.")
    pad = padding_pairs(x.shape[1:3], window, steps, padding, op)
    attrs = {"filter_size": window, "strides": steps, "pad": pad,
             "include_batch_in_index": valid.flag(include_batch_in_index, op, "include_batch_in_index")}
    pooled_shape(x.shape, 2, attrs, op)
    values, indices = _WITH_ARGMAX((x,), attrs)
    return values, indices


def dilation2d(x: Any, filter: Any, strides: Any = 1, padding: Any = "VALID", dilations: Any = 1) -> Tensor:
    """Grayscale morphological dilation (TF's): out[b, y, x, c] = max over (i, j) of
    x[b, y * sh + i * dh - pad_top, x * sw + j * dw - pad_left, c] + filter[i, j, c], for x
    (batch, height, width, channels) and filter (kh, kw, channels)."""
    op = "dilation2d"
    x = _float_input(x, op, promote=True)
    f = asarray(filter, dtype=x._dtype) if not hasattr(filter, "_dtype") else filter
    if f._dtype is not x._dtype:
        raise DTypeError(f"{op}: filter has dtype {f._dtype.name} and x {x._dtype.name}; they must match.")
    steps = _per_axis(strides, 2, op, "strides")
    rates = _per_axis(dilations, 2, op, "dilations")
    if x.ndim != 4 or f.ndim != 3:
        raise ShapeError(f"{op}: x must be 4-d (N, H, W, C) and filter 3-d (KH, KW, C), got shapes "
                         f"{x.shape} and {f.shape}.")
    pad = padding_pairs(x.shape[1:3], f.shape[:2], steps, padding, op, rates)
    attrs = {"strides": steps, "pad": pad, "dilations": rates}
    dilation_shape(x.shape, f.shape, attrs, op)
    return _DILATION((x, f), attrs)
