"""Fused kernels: FusedMatMul, FusedConv2D and FusedDepthwiseConv2D. Each computes the product
(this backend's MatMul or Conv2D computation), then adds the bias and applies the activation
in place on that fresh output: one pass each, no other array."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import depthwise_as_grouped
from tensorplug_numpy.kernels.convolution import conv
from tensorplug_numpy.kernels.linalg import _PRODUCTS as PRODUCTS


def _activate(y: np.ndarray, activation: str, alpha: float, weights: np.ndarray) -> np.ndarray:
    """`y` (fresh, owned by the kernel) with the activation applied in place."""
    if activation == "relu":
        np.maximum(y, 0, out=y)
    elif activation == "relu6":
        np.clip(y, 0, 6, out=y)
    elif activation == "elu":
        np.expm1(y, out=y, where=y < 0)
    elif activation == "leakyrelu":
        np.multiply(y, y.dtype.type(alpha), out=y, where=y < 0)
    elif activation == "prelu":
        np.multiply(y, weights, out=y, where=y <= 0)
    elif activation == "sigmoid":
        np.negative(y, out=y)
        np.exp(y, out=y)
        y += 1
        np.reciprocal(y, out=y)
    return y


def _finish(y: np.ndarray, bias: np.ndarray, prelu: np.ndarray, attrs: dict[str, Any],
            channels_axis: int | None = None) -> np.ndarray:
    if attrs["has_bias"]:
        if channels_axis is not None and bias.ndim == 1 and channels_axis != y.ndim - 1:
            bias = bias.reshape(-1, *(1,) * (y.ndim - 1 - channels_axis))
        y += bias
    return _activate(y, attrs["activation"], attrs["leakyrelu_alpha"], prelu)


def fused_matmul(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    a, b, bias, prelu = inputs
    y = PRODUCTS[attrs["transpose_a"], attrs["transpose_b"]](a, b)  # MatMul's: a fresh array
    return _finish(y, bias, prelu, attrs)


def _conv_attrs(attrs: dict[str, Any], groups: int) -> dict[str, Any]:
    geometry = {name: attrs[name] for name in ("strides", "padding", "dilations", "data_format")}
    return {**geometry, "groups": groups}


def _channels_axis(y: np.ndarray, attrs: dict[str, Any]) -> int:
    return 1 if attrs["data_format"][1] == "C" else y.ndim - 1


def fused_conv(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, w, bias, prelu = inputs
    y = conv((x, w), _conv_attrs(attrs, attrs["groups"]), backend)
    return _finish(y, bias, prelu, attrs, _channels_axis(y, attrs))


def fused_depthwise_conv(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, w, bias, prelu = inputs
    y = conv((x, w.reshape(depthwise_as_grouped(w.shape))), _conv_attrs(attrs, max(w.shape[2], 1)), backend)
    return _finish(y, bias, prelu, attrs, _channels_axis(y, attrs))


KERNELS: dict[str, Callable[..., Any]] = {
    "FusedMatMul": fused_matmul,
    "FusedConv2D": fused_conv,
    "FusedDepthwiseConv2D": fused_depthwise_conv,
}
