"""Fused kernels: FusedMatMul, FusedConv2D and FusedDepthwiseConv2D, each one compiled function
(per static attributes) of the product (``jnp.matmul`` or ``lax.conv_general_dilated``), the
bias and the activation; leakyrelu_alpha is traced (a new value does not compile again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tensorplug.kernel_helpers import depthwise_as_grouped
from tensorplug_jax.kernels._jit import with_attrs
from tensorplug_jax.kernels.convolution import _conv

_FUSION = ("activation", "has_bias")
_GEOMETRY = ("strides", "padding", "dilations", "data_format")


def _activate(y: Any, activation: str, alpha: Any, weights: Any) -> Any:
    if activation == "relu":
        return jax.nn.relu(y)
    if activation == "relu6":
        return jnp.clip(y, 0, 6)
    if activation == "elu":
        return jnp.where(y > 0, y, jnp.expm1(jnp.minimum(y, 0)))
    if activation == "leakyrelu":
        return jnp.where(y >= 0, y, y * jnp.asarray(alpha, y.dtype))
    if activation == "prelu":
        return jnp.where(y > 0, y, y * weights)
    if activation == "sigmoid":
        return jax.nn.sigmoid(y)
    return y


def _finish(y: Any, bias: Any, prelu: Any, activation: str, has_bias: bool, alpha: Any,
            channels_first: bool = False) -> Any:
    if has_bias:
        if channels_first and bias.ndim == 1:
            bias = bias.reshape(-1, *(1,) * (y.ndim - 2))
        y = y + bias
    return _activate(y, activation, alpha, prelu)


def _matmul(a: Any, b: Any, bias: Any, prelu: Any, transpose_a: bool, transpose_b: bool, activation: str,
            has_bias: bool, leakyrelu_alpha: Any) -> Any:
    a = jnp.swapaxes(a, -1, -2) if transpose_a else a
    b = jnp.swapaxes(b, -1, -2) if transpose_b else b
    return _finish(jnp.matmul(a, b), bias, prelu, activation, has_bias, leakyrelu_alpha)


def _conv2d(x: Any, w: Any, bias: Any, prelu: Any, activation: str, has_bias: bool, leakyrelu_alpha: Any,
            groups: int, **geometry: Any) -> Any:
    y = _conv(x, w, groups=groups, **geometry)
    return _finish(y, bias, prelu, activation, has_bias, leakyrelu_alpha, geometry["data_format"][1] == "C")


def _depthwise(x: Any, w: Any, bias: Any, prelu: Any, **attrs: Any) -> Any:
    grouped = w.reshape(depthwise_as_grouped(w.shape))
    return _conv2d(x, grouped, bias, prelu, groups=max(w.shape[2], 1), **attrs)


KERNELS: dict[str, Callable[..., Any]] = {
    "FusedMatMul": with_attrs(_matmul, static=("transpose_a", "transpose_b", *_FUSION),
                              traced=("leakyrelu_alpha",)),
    "FusedConv2D": with_attrs(_conv2d, static=("groups", *_GEOMETRY, *_FUSION), traced=("leakyrelu_alpha",)),
    "FusedDepthwiseConv2D": with_attrs(_depthwise, static=(*_GEOMETRY, *_FUSION),
                                       traced=("leakyrelu_alpha",)),
}
