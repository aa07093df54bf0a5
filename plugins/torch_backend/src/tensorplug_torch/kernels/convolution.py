"""Convolution kernels: Conv2D, Conv3D and their backprop kernels, through torch's convolutions
(channels-first, OIHW filters: the layouts are moved as views, see ``_layouts``). Asymmetric
padding, which torch's convolutions do not take, is added to the input first (and, for the
input's gradient, cropped off after). Half floats compute in float32, as on the numpy backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch.nn import grad as conv_grad

from tensorplug.kernel_helpers import conv_channels_first
from tensorplug_torch.kernels._layouts import as_oihw, compute_dtype, pad_spatial, to_first, to_last

__all__ = ["KERNELS", "convolve"]

_FORWARD = {2: F.conv2d, 3: F.conv3d}
_INPUT_GRADIENT = {2: conv_grad.conv2d_input, 3: conv_grad.conv3d_input}
_FILTER_GRADIENT = {2: conv_grad.conv2d_weight, 3: conv_grad.conv3d_weight}


def _symmetric(pads: Sequence[tuple[int, int]]) -> list[int] | None:
    """torch's padding (one width per dim) for `pads`, or None if some dim pads unevenly."""
    return [lo for lo, _ in pads] if all(lo == hi for lo, hi in pads) else None


def convolve(x: torch.Tensor, w: torch.Tensor, attrs: dict[str, Any], groups: int) -> torch.Tensor:
    """The convolution of `x` (laid out as attrs' data_format) with HWIO filter `w`, in `x`'s
    layout, computed in ``compute_dtype``."""
    first, rank = conv_channels_first(attrs["data_format"]), w.ndim - 2
    work = compute_dtype(x.dtype)
    xf, wf = to_first(x, first).to(work), as_oihw(w).to(work)
    if wf.shape[1] == 0:  # no input channel per group: torch gives no output channel, the spec zeros
        xf = xf.new_zeros((xf.shape[0], groups, *xf.shape[2:]))
        wf = wf.new_zeros((wf.shape[0], 1, *wf.shape[2:]))
    pads = attrs["padding"]
    padding = _symmetric(pads)
    if padding is None:
        xf, padding = pad_spatial(xf, pads), [0] * rank
    y = _FORWARD[rank](xf, wf, None, attrs["strides"], padding, attrs["dilations"], groups)
    return to_last(y, first)


def conv(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, w = inputs
    return convolve(x, w, attrs, attrs["groups"]).to(x.dtype).contiguous()


def backprop_input(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    dy, w = inputs
    first, rank = conv_channels_first(attrs["data_format"]), w.ndim - 2
    work = compute_dtype(dy.dtype)
    shape = list(attrs["input_shape"])
    if not first:
        shape.insert(1, shape.pop())
    pads = attrs["padding"]
    padding = _symmetric(pads)
    if padding is None:  # the gradient of the padded input, cropped
        shape[2:] = [n + lo + hi for n, (lo, hi) in zip(shape[2:], pads)]
    dx = _INPUT_GRADIENT[rank](shape, as_oihw(w).to(work), to_first(dy, first).to(work), attrs["strides"],
                               padding or 0, attrs["dilations"], attrs["groups"])
    if padding is None:
        dx = pad_spatial(dx, [(-lo, -hi) for lo, hi in pads])
    return to_last(dx, first).to(dy.dtype).contiguous()


def backprop_filter(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, dy = inputs
    first, work = conv_channels_first(attrs["data_format"]), compute_dtype(x.dtype)
    filter_shape = attrs["filter_shape"]
    rank = len(filter_shape) - 2
    xf = to_first(x, first).to(work)
    pads = attrs["padding"]
    padding = _symmetric(pads)
    if padding is None:
        xf, padding = pad_spatial(xf, pads), [0] * rank
    oihw = [filter_shape[rank + 1], filter_shape[rank], *filter_shape[:rank]]
    g = _FILTER_GRADIENT[rank](xf, oihw, to_first(dy, first).to(work), attrs["strides"], padding,
                               attrs["dilations"], attrs["groups"])
    return g.permute(*range(2, rank + 2), 1, 0).to(x.dtype).contiguous()


#: per rank, the names of the convolution and of its input's and filter's gradients
_NAMES = {2: ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"),
          3: ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")}

KERNELS: dict[str, Callable[..., Any]] = {
    name: kernel
    for names in _NAMES.values()
    for name, kernel in zip(names, (conv, backprop_input, backprop_filter))
}
