"""Convolution ops, public in ``tp.nn`` (JAX / Flax-style functional signatures): conv (1-, 2-
and 3-d by the input's rank), conv_transpose, depthwise_conv and separable_conv.

They run the kernels of ``specs.convolution``; a 1-d convolution runs the 2-d kernels on a unit
spatial dim, as TF.js's conv1d does. Filters are laid out as TF's: spatial dims, in_channels /
groups, out_channels, in either data format.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import default_float
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import astype, caller, convert_pair
from tensorplug.families.convolution.spec import (
    DATA_FORMATS,
    KERNEL_NAMES,
    conv_output_shape,
    conv_padding,
    conv_transpose_shape,
    spatial_and_channels,
)
from tensorplug.families.manipulation.ops import reshape

__all__ = ["conv", "conv_transpose", "depthwise_conv", "separable_conv"]

_CALLERS = {rank: tuple(caller(name) for name in names) for rank, names in KERNEL_NAMES.items()}
Padding = str | int | Sequence[int] | Sequence[tuple[int, int]]
Ints = int | Sequence[int]


def _operands(op: str, x: Any, kernel: Any, data_format: Any) -> tuple[Tensor, Tensor, int, str]:
    """x and the kernel as float tensors of one dtype, the spatial rank and the data format's
    name for that rank ('NHWC' ...)."""
    x, w = convert_pair(x, kernel, op)
    if x._dtype.is_complex:
        raise DTypeError(f"{op}: complex inputs are not supported (got {x._dtype.name}); convolve the real "
                         "and imaginary parts separately.")
    if not x._dtype.is_floating:
        x, w = astype(x, default_float), astype(w, default_float)
    rank = x.ndim - 2
    if rank not in DATA_FORMATS:
        raise ShapeError(f"{op}: x has shape {x.shape}; it must have 3, 4 or 5 dims (batch, 1 to 3 spatial "
                         "dims, channels), e.g. add a batch axis with tp.expand_dims(x, 0).")
    if w.ndim != x.ndim:
        raise ShapeError(f"{op}: the kernel has shape {w.shape} but x has {x.ndim} dims {x.shape}; a "
                         f"{rank}-d kernel has {x.ndim} dims ({rank} spatial, in_channels / groups, "
                         "out_channels).")
    last, first = DATA_FORMATS[rank]
    formats = {"channels_last": last, "channels_first": first, last: last, first: first}
    if not isinstance(data_format, str) or data_format not in formats:
        raise ShapeError(f"{op}: data_format {data_format!r} is not 'channels_last' or 'channels_first' "
                         f"('{last}' or '{first}' for a {rank}-d input).")
    return x, w, rank, formats[data_format]


def _per_dim(op: str, arg: str, value: Any, rank: int) -> tuple[int, ...]:
    if isinstance(value, (list, tuple)):
        out = tuple(valid.integer(v, op, arg, minimum=1) for v in value)
        if len(out) != rank:
            raise ShapeError(f"{op}: {arg} {tuple(value)} has {len(out)} entries for {rank} spatial dim(s); "
                             f"give one int, or {rank}.")
        return out
    return (valid.integer(value, op, arg, minimum=1),) * rank


def _lift(shape: tuple[int, ...], fmt: str, kernel: bool = False) -> tuple[int, ...]:
    """A 1-d convolution's shape with a unit spatial dim in front of its one spatial dim."""
    if kernel:
        return (1, *shape)
    return (shape[0], shape[1], 1, shape[2]) if fmt == "NCW" else (shape[0], 1, *shape[1:])


def _lowered(rank: int, fmt: str, strides: tuple[int, ...], pads: Any, dilation: tuple[int, ...],
             groups: int) -> dict[str, Any]:
    """The kernels' attributes; a 1-d convolution's lifted to the 2-d kernels."""
    if rank == 1:
        return {"strides": (1, *strides), "padding": ((0, 0), *pads), "dilations": (1, *dilation),
                "groups": groups, "data_format": "NCHW" if fmt == "NCW" else "NHWC"}
    return {"strides": strides, "padding": pads, "dilations": dilation, "groups": groups, "data_format": fmt}


def _steps(op: str, rank: int, strides: Any, dilation: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return _per_dim(op, "strides", strides, rank), _per_dim(op, "dilation", dilation, rank)


def _within(strides: tuple[int, ...], padded: tuple[int, ...]) -> tuple[int, ...]:
    """Strides no longer than the padded input (one window either way): the kernels' libraries
    take indices of their own size only."""
    return tuple(min(s, max(n, 1)) for s, n in zip(strides, padded))


def conv_operands(op: str, x: Any, kernel: Any, strides: Ints, padding: Padding, dilation: Ints, groups: int,
                  data_format: str) -> tuple[Tensor, Tensor, int, str, tuple[int, ...], dict[str, Any]]:
    """``conv``'s arguments checked (errors naming `op`): x and the kernel as float tensors of
    one dtype, the spatial rank, the data format's name, the output's shape and the kernels'
    geometry attributes (a 1-d convolution's lifted to the 2-d kernels)."""
    x, w, rank, fmt = _operands(op, x, kernel, data_format)
    strides, dilation = _steps(op, rank, strides, dilation)
    groups = valid.integer(groups, op, "groups", minimum=1)
    sizes, _ = spatial_and_channels(x.shape, fmt)
    pads = conv_padding(padding, sizes, w.shape[:rank], strides, dilation, op)
    shape = conv_output_shape(x.shape, w.shape, strides, pads, dilation, groups, fmt, op)
    valid.checked_size(shape, x._backend, op)
    padded = valid.checked_size(tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads)), x._backend, op)
    return x, w, rank, fmt, shape, _lowered(rank, fmt, _within(strides, padded), pads, dilation, groups)


def conv(x: Any, kernel: Any, /, strides: Ints = 1, padding: Padding = "VALID", *, dilation: Ints = 1,
         groups: int = 1, data_format: str = "channels_last") -> Tensor:
    """The 1-, 2- or 3-d convolution (cross-correlation, as in every deep-learning library) of
    x (batch, spatial..., channels; channels right after the batch with
    data_format='channels_first') with kernel (spatial..., in_channels / groups,
    out_channels); padding is 'VALID', 'SAME' (output size ceil(size / stride)), an int, or
    one int or (low, high) pair per spatial dim."""
    x, w, rank, fmt, shape, attrs = conv_operands("conv", x, kernel, strides, padding, dilation, groups,
                                                  data_format)
    if rank == 1:
        out = _CALLERS[2][0]((reshape(x, _lift(x.shape, fmt)), reshape(w, _lift(w.shape, fmt, True))), attrs)
        return reshape(out, shape)
    return _CALLERS[rank][0]((x, w), attrs)


def conv_transpose(x: Any, kernel: Any, /, strides: Ints = 1, padding: Padding = "VALID", *,
                   dilation: Ints = 1, groups: int = 1, data_format: str = "channels_last",
                   output_padding: Ints = 0, output_shape: Sequence[int] | None = None) -> Tensor:
    """The transposed convolution: the gradient of ``conv`` with respect to its input, as
    PyTorch's ConvTranspose, TF's conv_transpose and Flax's ConvTranspose(transpose_kernel=True)
    compute it. `kernel` is the forward convolution's (from the result to x): spatial...,
    out_channels / groups, in_channels (x's channels). `padding` is the forward convolution's,
    so each spatial size is (n - 1) * stride + (k - 1) * dilation + 1 - low - high ('SAME':
    n * stride), plus `output_padding` (0 .. stride - 1); or give the spatial sizes as
    `output_shape`."""
    op = "conv_transpose"
    x, w, rank, fmt = _operands(op, x, kernel, data_format)
    strides, dilation = _steps(op, rank, strides, dilation)
    groups = valid.integer(groups, op, "groups", minimum=1)
    extra = tuple(valid.integer(v, op, "output_padding", minimum=0) for v in
                  (output_padding if isinstance(output_padding, (list, tuple)) else (output_padding,) * rank))
    if len(extra) != rank:
        raise ShapeError(f"{op}: output_padding {output_padding!r} has {len(extra)} entries for {rank} "
                         f"spatial dim(s); give one int, or {rank}.")
    if output_shape is not None:
        if any(extra):
            raise ArgumentError(f"{op}: give output_padding or output_shape, not both.")
        wanted = valid.shape(output_shape, op, "output_shape")
        if len(wanted) != rank:
            raise ShapeError(f"{op}: output_shape {wanted} must give the {rank} spatial size(s) of the "
                             "result.")
        default, _ = conv_transpose_shape(x.shape, w.shape, strides, padding, dilation, groups, fmt,
                                          (0,) * rank, op)
        extra = tuple(n - d for n, d in zip(wanted, spatial_and_channels(default, fmt)[0]))
    if w.shape[rank + 1] != spatial_and_channels(x.shape, fmt)[1]:
        raise ShapeError(f"{op}: the kernel has shape {w.shape}, laid out (spatial..., out_channels / "
                         f"groups, in_channels); its last dim must be x's "
                         f"{spatial_and_channels(x.shape, fmt)[1]} channels (x has shape {x.shape}, {fmt}).")
    shape, pads = conv_transpose_shape(x.shape, w.shape, strides, padding, dilation, groups, fmt, extra, op)
    valid.checked_size(shape, x._backend, op)
    sizes = spatial_and_channels(shape, fmt)[0]
    padded = valid.checked_size(tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads)), x._backend, op)
    attrs = _lowered(rank, fmt, _within(strides, padded), pads, dilation, groups)
    if rank == 1:
        attrs["input_shape"] = _lift(shape, fmt)
        out = _CALLERS[2][1]((reshape(x, _lift(x.shape, fmt)), reshape(w, _lift(w.shape, fmt, True))), attrs)
        return reshape(out, shape)
    return _CALLERS[rank][1]((x, w), {"input_shape": shape, **attrs})


def depthwise_conv(x: Any, kernel: Any, /, strides: Ints = 1, padding: Padding = "VALID", *,
                   dilation: Ints = 1, data_format: str = "channels_last") -> Tensor:
    """Each input channel convolved with its own `multiplier` filters (TF's depthwise_conv2d):
    kernel (spatial..., in_channels, multiplier) gives in_channels * multiplier output channels,
    channel c * multiplier + m from input channel c. A ``conv`` with groups = in_channels."""
    op = "depthwise_conv"
    x, w, rank, fmt = _operands(op, x, kernel, data_format)
    channels = spatial_and_channels(x.shape, fmt)[1]
    if w.shape[rank] != channels:
        raise ShapeError(f"{op}: the kernel has shape {w.shape}, laid out (spatial..., in_channels, "
                         f"multiplier); its dim {rank} must be x's {channels} channels (x has shape "
                         f"{x.shape}, {fmt}).")
    grouped = reshape(w, (*w.shape[:rank], 1, channels * w.shape[rank + 1]))
    return conv(x, grouped, strides, padding, dilation=dilation, groups=max(channels, 1),
                data_format=data_format)


def separable_conv(x: Any, depthwise_kernel: Any, pointwise_kernel: Any, /, strides: Ints = 1,
                   padding: Padding = "VALID", *, dilation: Ints = 1,
                   data_format: str = "channels_last") -> Tensor:
    """``depthwise_conv`` then a 1x1 ``conv`` mixing the channels (TF's separable_conv2d):
    pointwise_kernel is (1..., in_channels * multiplier, out_channels), or just its last two dims."""
    op = "separable_conv"
    y = depthwise_conv(x, depthwise_kernel, strides, padding, dilation=dilation, data_format=data_format)
    rank = y.ndim - 2
    _, pw = convert_pair(y, pointwise_kernel, "separable_conv")
    if pw.ndim == 2:
        pw = reshape(pw, (1,) * rank + pw.shape)
    if pw.ndim != rank + 2 or any(d != 1 for d in pw.shape[:rank]):
        raise ShapeError(f"{op}: pointwise_kernel has shape {pw.shape}; it must be {(1,) * rank} + "
                         "(in_channels * multiplier, out_channels), or just those two dims.")
    return conv(y, pw, data_format=data_format)
