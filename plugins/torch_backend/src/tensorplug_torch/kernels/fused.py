"""Fused kernels: FusedMatMul, FusedConv2D and FusedDepthwiseConv2D. Each computes the product
(this backend's MatMul or convolution), then adds the bias and applies the activation in place
on that fresh output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug.kernel_helpers import conv_channels_first, depthwise_as_grouped
from tensorplug_torch.kernels.convolution import convolve
from tensorplug_torch.kernels.linalg import PRODUCTS

__all__ = ["KERNELS"]


Activation = Callable[[torch.Tensor, float, torch.Tensor], torch.Tensor]

#: activation name -> f(y, leakyrelu_alpha, prelu_weights), which may write `y` (fresh, the kernel's)
_ACTIVATIONS: dict[str, Activation] = {
    "linear": lambda y, alpha, weights: y,
    "relu": lambda y, alpha, weights: y.clamp_(min=0),
    "relu6": lambda y, alpha, weights: y.clamp_(0, 6),
    "elu": lambda y, alpha, weights: torch.where(y < 0, torch.expm1(y), y),
    "leakyrelu": lambda y, alpha, weights: torch.where(y < 0, y * alpha, y),
    "prelu": lambda y, alpha, weights: torch.where(y <= 0, y * weights.to(y.dtype), y),
    "sigmoid": lambda y, alpha, weights: y.sigmoid_(),
}


def _finish(y: torch.Tensor, bias: torch.Tensor, prelu: torch.Tensor, attrs: dict[str, Any],
            channels_axis: int | None = None) -> torch.Tensor:
    if attrs["has_bias"]:
        if channels_axis is not None and bias.ndim == 1 and channels_axis != y.ndim - 1:
            bias = bias.reshape(-1, *(1,) * (y.ndim - 1 - channels_axis))
        y.add_(bias)  # (the spec: the bias broadcasts to the output without growing it)
    return _ACTIVATIONS[attrs["activation"]](y, attrs["leakyrelu_alpha"], prelu)


def fused_matmul(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    a, b, bias, prelu = inputs
    y = PRODUCTS[attrs["transpose_a"], attrs["transpose_b"]](a, b)  # MatMul's: a fresh tensor
    return _finish(y, bias, prelu, attrs)


def _fused_conv(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor, prelu: torch.Tensor,
                attrs: dict[str, Any], groups: int) -> torch.Tensor:
    y = convolve(x, w, attrs, groups)  # (fresh, in its compute dtype)
    channels_axis = 1 if conv_channels_first(attrs["data_format"]) else y.ndim - 1
    return _finish(y, bias, prelu, attrs, channels_axis).to(x.dtype).contiguous()


def fused_conv(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, w, bias, prelu = inputs
    return _fused_conv(x, w, bias, prelu, attrs, attrs["groups"])


def fused_depthwise_conv(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, w, bias, prelu = inputs
    return _fused_conv(x, w.reshape(depthwise_as_grouped(w.shape)), bias, prelu, attrs, max(w.shape[2], 1))


KERNELS: dict[str, Callable[..., Any]] = {
    "FusedMatMul": fused_matmul,
    "FusedConv2D": fused_conv,
    "FusedDepthwiseConv2D": fused_depthwise_conv,
}
