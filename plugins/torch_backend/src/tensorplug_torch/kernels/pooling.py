"""Pooling kernels: MaxPool, AvgPool (2-D and 3-D), their Grad kernels, MaxPoolWithArgmax, and
Dilation2D with its two backward kernels, on torch's channels-first pools (layouts moved as
views, see ``_layouts``).

Pads are added to the input first (-inf for a max, 0 for an average: torch pads only evenly and
by at most half the window), so torch's pools run unpadded. AvgPool sums (``divisor_override=1``)
and divides by the count of real elements (TF's rule, ``avg_pool_divisor``); its gradient is the
sum's transpose, a depthwise transposed convolution with a window of ones. MaxPoolGrad scatters
dy to the indices torch's max pool returns (each window's first maximum, row-major). Dilation2D
adds the filter to ``F.unfold``'s taps; its input gradient folds the winning taps back
(``F.fold``, unfold's transpose). Half floats average in float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from tensorplug.kernel_helpers import avg_pool_divisor, output_sizes, pool_window
from tensorplug_torch.kernels._layouts import compute_dtype, pad_spatial, to_first, to_last

__all__ = ["KERNELS"]

_MAX = {2: F.max_pool2d, 3: F.max_pool3d}
_SUM = {2: F.avg_pool2d, 3: F.avg_pool3d}
_TRANSPOSED = {2: F.conv_transpose2d, 3: F.conv_transpose3d}
_NEG_INF = float("-inf")


def _first(attrs: dict[str, Any]) -> bool:
    return attrs.get("data_format", "channels_last") == "channels_first"


def _crop(padded: torch.Tensor, pad: Any) -> torch.Tensor:
    """Channels-first `padded` without its (low, high) spatial pads."""
    return pad_spatial(padded, [(-lo, -hi) for lo, hi in pad])


def _divisor(xf: torch.Tensor, attrs: dict[str, Any], dtype: torch.dtype) -> torch.Tensor:
    """How many real elements each window of channels-first `xf` covers (see avg_pool_divisor)."""
    geometry = pool_window(xf.ndim, "channels_first", attrs["filter_size"], attrs["strides"], attrs["pad"])
    return torch.from_numpy(avg_pool_divisor(xf.shape, *geometry)).to(xf.device, dtype)


def _max_indices(xf: torch.Tensor, attrs: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(padded input, window maxima, their flat indices in each padded (batch, channel) plane)."""
    xp = pad_spatial(xf, attrs["pad"], _NEG_INF)
    values, indices = _MAX[xf.ndim - 2](xp, attrs["filter_size"], attrs["strides"], return_indices=True)
    return xp, values, indices


def max_pool(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    first = _first(attrs)
    xf = to_first(inputs[0], first)
    xp = pad_spatial(xf, attrs["pad"], _NEG_INF)
    return to_last(_MAX[xf.ndim - 2](xp, attrs["filter_size"], attrs["strides"]), first).contiguous()


def avg_pool(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, first = inputs[0], _first(attrs)
    work = compute_dtype(x.dtype)
    xf = to_first(x, first).to(work)
    total = _SUM[xf.ndim - 2](pad_spatial(xf, attrs["pad"]), attrs["filter_size"], attrs["strides"],
                              divisor_override=1)
    return to_last(total / _divisor(xf, attrs, work), first).to(x.dtype).contiguous()


def max_pool_grad(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    """dy added at each window's first maximum."""
    dy, x, first = inputs[0], inputs[1], _first(attrs)
    if not dy.numel():
        return torch.zeros_like(x)
    xp, _, indices = _max_indices(to_first(x, first), attrs)
    dyf = to_first(dy, first)
    flat = dyf.new_zeros((*xp.shape[:2], xp[0, 0].numel()))
    flat.scatter_add_(2, indices.flatten(2), dyf.flatten(2))
    return to_last(_crop(flat.reshape(xp.shape), attrs["pad"]), first).contiguous()


def avg_pool_grad(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    """dy shared out evenly over each window's real elements."""
    dy, x, first = inputs[0], inputs[1], _first(attrs)
    if not dy.numel():
        return torch.zeros_like(x)
    work = compute_dtype(dy.dtype)
    xf, dyf = to_first(x, first), to_first(dy, first).to(work)
    share = dyf / _divisor(xf, attrs, work)
    window, strides, channels = attrs["filter_size"], attrs["strides"], xf.shape[1]
    padded = [n + lo + hi for n, (lo, hi) in zip(xf.shape[2:], attrs["pad"])]
    extra = [p - ((m - 1) * s + k) for p, m, s, k in zip(padded, dyf.shape[2:], strides, window)]
    ones = share.new_ones((channels, 1, *window))
    gp = _TRANSPOSED[xf.ndim - 2](share, ones, None, strides, 0, extra, channels)
    return to_last(_crop(gp, attrs["pad"]), first).to(dy.dtype).contiguous()


def max_pool_with_argmax(inputs: list[torch.Tensor], attrs: dict[str, Any],
                         backend: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """The maxima and, per maximum, its flat index in the NHWC input ((y * W + x) * C + c, plus
    b * H * W * C with include_batch_in_index)."""
    x = inputs[0]
    batch, height, width, channels = x.shape
    xp, values, flat = _max_indices(to_first(x, False), attrs)
    (top, _), (left, _) = attrs["pad"]
    y = (flat // xp.shape[-1] - top).clamp_(0, max(height - 1, 0))
    col = (flat % xp.shape[-1] - left).clamp_(0, max(width - 1, 0))
    index = (y * width + col) * channels + torch.arange(channels, device=x.device).reshape(-1, 1, 1)
    if attrs["include_batch_in_index"]:
        index += torch.arange(batch, device=x.device).reshape(-1, 1, 1, 1) * (height * width * channels)
    return to_last(values, False).contiguous(), to_last(index, False).contiguous()


# -- Dilation2D: the window's taps are `dilations` apart, each adds its filter value ------------
def _dilation_taps(x: torch.Tensor, f: torch.Tensor,
                   attrs: dict[str, Any]) -> tuple[torch.Tensor, tuple[int, ...], dict[str, Any]]:
    """x + filter at every tap of every window, (N, C, taps, output pixels); the output's NHWC
    shape; and F.unfold's geometry over the -inf padded channels-first input (with its size)."""
    window, strides, pad = pool_window(4, "channels_last", f.shape[:2], attrs["strides"], attrs["pad"])
    out = output_sizes(x.shape, window, strides, pad, (1, *attrs["dilations"], 1))
    xp = pad_spatial(to_first(x, False), attrs["pad"], _NEG_INF)
    geometry = {"kernel_size": tuple(f.shape[:2]), "dilation": tuple(attrs["dilations"]),
                "stride": tuple(attrs["strides"]), "output_size": tuple(xp.shape[2:])}
    taps = F.unfold(xp, **{k: v for k, v in geometry.items() if k != "output_size"})
    taps = taps.reshape(out[0], out[3], -1, out[1] * out[2]) if taps.numel() else xp.new_empty(
        (out[0], out[3], f.shape[0] * f.shape[1], out[1] * out[2]))
    return taps + f.permute(2, 0, 1).reshape(out[3], -1, 1), out, geometry


def _winners(inputs: list[torch.Tensor], attrs: dict[str, Any],
             dtype: torch.dtype) -> tuple[torch.Tensor, dict[str, Any]]:
    """dy (in `dtype`) at each window's first maximal tap and 0 at the others, shaped as
    _dilation_taps' taps; and the unfold geometry."""
    x, f, dy = inputs
    taps, _, geometry = _dilation_taps(x, f, attrs)
    dyf = to_first(dy, False).to(dtype).flatten(2).unsqueeze(2)
    return dyf.new_zeros(taps.shape).scatter_(2, taps.argmax(dim=2, keepdim=True), dyf), geometry


def dilation2d(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    taps, out, _ = _dilation_taps(inputs[0], inputs[1], attrs)
    top = taps.amax(dim=2) if taps.numel() else taps.sum(dim=2)  # (amax refuses an empty tensor)
    return top.reshape(out[0], out[3], *out[1:3]).permute(0, 2, 3, 1).contiguous()


def dilation2d_backprop_input(inputs: list[torch.Tensor], attrs: dict[str, Any],
                              backend: Any) -> torch.Tensor:
    if not inputs[2].numel():
        return torch.zeros_like(inputs[0])
    picked, geometry = _winners(inputs, attrs, inputs[2].dtype)
    padded = F.fold(picked.flatten(1, 2), **geometry)
    return to_last(_crop(padded, attrs["pad"]), False).contiguous()


def dilation2d_backprop_filter(inputs: list[torch.Tensor], attrs: dict[str, Any],
                               backend: Any) -> torch.Tensor:
    f = inputs[1]
    if not inputs[2].numel():
        return torch.zeros_like(f)
    sums = _winners(inputs, attrs, torch.float64)[0].sum(dim=(0, 3))  # (C, taps): summed in float64
    return sums.reshape(f.shape[2], f.shape[0], f.shape[1]).permute(1, 2, 0).to(f.dtype).contiguous()


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
