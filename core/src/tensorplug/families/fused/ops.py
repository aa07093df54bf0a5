"""Fused ops of ``tp.nn``: fused_matmul and fused_conv, activation(product + bias) in one
kernel (TF.js's tf.fused.matMul and tf.fused.conv2d). fused_matmul runs FusedMatMul;
fused_conv runs FusedConv2D for a 2-d convolution, FusedDepthwiseConv2D for a 2-d one with
groups = in_channels (> 1), and composes conv, the bias and the activation otherwise."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families._common.convert import asarray, astype, caller, convert_pair, scalar_tensor
from tensorplug.families.activations.ops import elu, finite, leaky_relu, prelu, real_float, relu6
from tensorplug.families.convolution.ops import Ints, Padding, conv, conv_operands
from tensorplug.families.elementwise.ops import add
from tensorplug.families.fused.spec import ACTIVATIONS, fused_input_shapes
from tensorplug.families.linalg.spec import matmul_shape
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.nn.ops import relu, sigmoid

__all__ = ["fused_conv", "fused_matmul"]

_FUSED_MATMUL = caller("FusedMatMul")
_FUSED_CONV_2D = caller("FusedConv2D")
_FUSED_DEPTHWISE = caller("FusedDepthwiseConv2D")


def _activation(op: str, activation: Any, alpha: Any, weights: Any) -> dict[str, Any]:
    if not isinstance(activation, str):
        raise ArgumentError(f"{op}: activation must be a str, one of {', '.join(map(repr, ACTIVATIONS))}; "
                            f"got {valid.shown(activation)}.")
    if activation not in ACTIVATIONS:
        raise ShapeError(f"{op}: activation {activation!r} is not one of "
                         f"{', '.join(map(repr, ACTIVATIONS))}; "
                         "pass one of those (apply any other after the op).")
    if (weights is not None) != (activation == "prelu"):
        raise ShapeError(f"{op}: prelu_weights go with activation='prelu' and only with it (got activation "
                         f"{activation!r} and prelu_weights {'given' if weights is not None else 'None'}).")
    return {"activation": activation, "leakyrelu_alpha": finite(alpha, op, "leakyrelu_alpha")}


def _optional(value: Any, dtype: Any, op: str) -> Tensor:
    """An optional input in the product's dtype, or the 0-d placeholder the kernels ignore."""
    return scalar_tensor(0.0, dtype) if value is None else astype(real_float(asarray(value), op), dtype)


def fused_matmul(a: Any, b: Any, /, bias: Any = None, activation: str = "linear", *,
                 transpose_a: bool = False, transpose_b: bool = False, prelu_weights: Any = None,
                 leakyrelu_alpha: float = 0.2) -> Tensor:
    """activation(a @ b + bias) in one kernel (TF.js's tf.fused.matMul): a and b have >= 2
    dims (leading ones broadcast), either optionally transposed; bias broadcasts to the
    product; activation is 'linear', 'relu', 'relu6', 'elu', 'leakyrelu' (slope
    leakyrelu_alpha), 'prelu' (slopes prelu_weights) or 'sigmoid'."""
    op = "fused_matmul"
    x, y = convert_pair(a, b, "fused_matmul")
    x, y = real_float(x, op), real_float(y, op)
    if x.ndim < 2 or y.ndim < 2:
        raise ShapeError(f"{op}: a (shape {x.shape}) and b (shape {y.shape}) need at least 2 dimensions; "
                         "make a vector a row or a column with tp.expand_dims first.")
    attrs = _activation(op, activation, leakyrelu_alpha, prelu_weights)
    ta, tb = valid.flag(transpose_a, op, "transpose_a"), valid.flag(transpose_b, op, "transpose_b")
    attrs.update(transpose_a=ta, transpose_b=tb, has_bias=bias is not None)
    inputs = (x, y, _optional(bias, x._dtype, op), _optional(prelu_weights, x._dtype, op))
    shape = matmul_shape(x.shape, y.shape, op, transpose_x=ta, transpose_y=tb)
    fused_input_shapes(shape, None if bias is None else inputs[2].shape,
                       None if prelu_weights is None else inputs[3].shape, None, op)
    return _FUSED_MATMUL(inputs, attrs)


def _apply(y: Tensor, bias: Tensor | None, weights: Tensor | None, attrs: dict[str, Any],
           channels_axis: int) -> Tensor:
    """The unfused bias and activation of fused_conv's composed path."""
    if bias is not None:
        if bias.ndim == 1 and channels_axis != y.ndim - 1:
            bias = reshape(bias, (-1, *(1,) * (y.ndim - 1 - channels_axis)))
        y = add(y, bias)
    activation = attrs["activation"]
    if activation == "relu":
        return relu(y)
    if activation == "relu6":
        return relu6(y)
    if activation == "elu":
        return elu(y)
    if activation == "leakyrelu":
        return leaky_relu(y, attrs["leakyrelu_alpha"])
    if activation == "prelu":
        return prelu(y, weights)
    if activation == "sigmoid":
        return sigmoid(y)
    return y


def fused_conv(x: Any, kernel: Any, /, bias: Any = None, activation: str = "linear", strides: Ints = 1,
               padding: Padding = "VALID", *, dilation: Ints = 1, groups: int = 1,
               data_format: str = "channels_last", prelu_weights: Any = None,
               leakyrelu_alpha: float = 0.2) -> Tensor:
    """activation(conv(x, kernel, ...) + bias) (TF.js's tf.fused.conv2d): ``tp.nn.conv``'s
    arguments, a bias of one number per output channel (or a scalar), and fused_matmul's
    activations. 2-d convolutions run one fused kernel; other ranks compose the ops."""
    op = "fused_conv"
    x, w, rank, fmt, shape, geometry = conv_operands(op, x, kernel, strides, padding, dilation, groups,
                                                     data_format)
    attrs = _activation(op, activation, leakyrelu_alpha, prelu_weights)
    b = None if bias is None else _optional(bias, x._dtype, op)
    weights = None if prelu_weights is None else _optional(prelu_weights, x._dtype, op)
    channels_axis = 1 if fmt[1] == "C" else len(shape) - 1
    fused_input_shapes(shape, None if b is None else b.shape, None if weights is None else weights.shape,
                       channels_axis, op)
    channels = x.shape[channels_axis]
    depthwise = rank == 2 and geometry["groups"] == channels > 1
    if rank != 2 or (geometry["groups"] > 1 and not depthwise):
        y = _convolved(x, w, rank, fmt, geometry)
        return _apply(y, b, weights, attrs, channels_axis)
    inputs = (x, w, scalar_tensor(0.0, x._dtype) if b is None else b,
              scalar_tensor(0.0, x._dtype) if weights is None else weights)
    attrs["has_bias"] = b is not None
    if depthwise:
        del geometry["groups"]
        depthwise_filter = reshape(w, (*w.shape[:2], channels, w.shape[3] // channels))
        return _FUSED_DEPTHWISE((x, depthwise_filter, *inputs[2:]), {**geometry, **attrs})
    return _FUSED_CONV_2D(inputs, {**geometry, **attrs})


def _convolved(x: Tensor, w: Tensor, rank: int, fmt: str, geometry: dict[str, Any]) -> Tensor:
    """``conv`` with the checked geometry (the kernels' attributes, a 1-d one's lifted)."""
    strides, dilations = geometry["strides"][-rank:], geometry["dilations"][-rank:]
    return conv(x, w, strides, geometry["padding"][-rank:], dilation=dilations, groups=geometry["groups"],
                data_format=fmt)
