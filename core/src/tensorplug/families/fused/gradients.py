"""Default gradients of the fused kernels, unfused as TF.js's (ops/fused/mat_mul.ts,
conv2d.ts): the activation's derivative gives dz, the gradient at the pre-activation z =
product + bias; then the MatMul kernels (MatMul's own gradient rule) or Conv2DBackpropInput /
Conv2DBackpropFilter give the gradients of the product's operands, and dz summed to the bias's
shape the bias's. The derivative comes from the kernel's output y where y determines it
(relu, relu6, elu, sigmoid); 'leakyrelu' and 'prelu' recompute z (the unfused product), since
y alone does not tell z's sign for a slope <= 0. Every piece is an op or a kernel with a
gradient, so each order is right."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel, unbroadcast
from tensorplug.families.fused.spec import depthwise_as_grouped
from tensorplug.families.linalg.gradients import _matmul as matmul_gradient

Grads = Mapping[str, Callable[[], Tensor]]
FUSED_GEOMETRY = ("strides", "padding", "dilations", "data_format")


def pre_activation_gradient(dy: Tensor, y: Tensor, attrs: Any, pre_activation: Callable[[], Tensor],
        prelu: Tensor) -> Tensor:
    """The gradient at the pre-activation z from the gradient dy at the output y."""
    activation = attrs["activation"]
    if activation == "relu":
        return tp.where(y > 0, dy, 0.0)
    if activation == "relu6":
        return tp.where(tp.logical_and(y > 0, y < 6), dy, 0.0)
    if activation == "elu":
        return kernel("EluGrad", dy, y, alpha=1.0)
    if activation == "sigmoid":
        return dy * (y * (1.0 - y))
    if activation == "leakyrelu":
        return tp.where(pre_activation() >= 0, dy, dy * attrs["leakyrelu_alpha"])
    if activation == "prelu":
        return tp.where(pre_activation() > 0, dy, dy * prelu)
    return dy


def with_bias(product: Tensor, bias: Tensor, attrs: Any, channels_axis: int | None) -> Tensor:
    """`product` plus the bias where the kernel has one (along `channels_axis` if given)."""
    if not attrs["has_bias"]:
        return product
    if channels_axis is not None and bias.ndim == 1 and channels_axis != product.ndim - 1:
        bias = tp.reshape(bias, (-1, *(1,) * (product.ndim - 1 - channels_axis)))
    return product + bias


def _bias_gradient(dz: Tensor, bias: Tensor, attrs: Any, channels_axis: int | None) -> Tensor:
    if not attrs["has_bias"]:
        return tp.zeros_like(bias)
    if channels_axis is not None and bias.ndim == 1:
        axes = tuple(i for i in range(dz.ndim) if i != channels_axis)
        return tp.sum(dz, axis=axes)
    return unbroadcast(dz, bias.shape)


def _fused(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any, product: Callable[[], Tensor],
           operands: Callable[[Tensor], dict[str, Callable[[], Tensor]]], names: tuple[str, str],
           channels_axis: int | None) -> Grads:
    """The gradients of a fused kernel of the given product and its operands' gradients."""
    _, _, bias, prelu, y = saved
    cache: dict[str, Tensor] = {}

    def z() -> Tensor:
        if "z" not in cache:
            cache["z"] = with_bias(product(), bias, attrs, channels_axis)
        return cache["z"]

    def dz() -> Tensor:
        if "dz" not in cache:
            cache["dz"] = pre_activation_gradient(dy, y, attrs, z, prelu)
        return cache["dz"]

    def weights() -> Tensor:
        if attrs["activation"] != "prelu":
            return tp.zeros_like(prelu)
        return unbroadcast(tp.where(z() > 0, 0.0, dy * z()), prelu.shape)

    first, second = names
    return {first: lambda: operands(dz())[first](), second: lambda: operands(dz())[second](),
            "bias": lambda: _bias_gradient(dz(), bias, attrs, channels_axis),
            "prelu_weights": weights}


_SAVED = {"inputs": ("a", "b", "bias", "prelu_weights"), "outputs": ("out",)}


@gradient("FusedMatMul", **_SAVED)
def _fused_matmul(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    a, b = saved[0], saved[1]
    transposes = {"transpose_x": attrs["transpose_a"], "transpose_y": attrs["transpose_b"]}

    def operands(dz: Tensor) -> dict[str, Callable[[], Tensor]]:
        grads = matmul_gradient(dz, (a, b), transposes)
        return {"a": grads["x"], "b": grads["y"]}

    def product() -> Tensor:
        return kernel("MatMul", a, b, **transposes)

    return _fused(dy, saved, attrs, product, operands, ("a", "b"), None)


def _conv_gradient(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any, depthwise: bool) -> Grads:
    x, w = saved[0], saved[1]
    geo = {name: attrs[name] for name in FUSED_GEOMETRY}
    if depthwise:
        geo["groups"] = max(w.shape[2], 1)
        grouped = tp.reshape(w, depthwise_as_grouped(w.shape))
    else:
        geo["groups"] = attrs["groups"]
        grouped = w

    def operands(dz: Tensor) -> dict[str, Callable[[], Tensor]]:
        def filter_gradient() -> Tensor:
            g = kernel("Conv2DBackpropFilter", x, dz, filter_shape=grouped.shape, **geo)
            return tp.reshape(g, w.shape) if depthwise else g
        return {"x": lambda: kernel("Conv2DBackpropInput", dz, grouped, input_shape=x.shape, **geo),
                "filter": filter_gradient}

    def product() -> Tensor:
        return kernel("Conv2D", x, grouped, **geo)

    channels_axis = 1 if attrs["data_format"][1] == "C" else 3
    return _fused(dy, saved, attrs, product, operands, ("x", "filter"), channels_axis)


_CONV_SAVED = {"inputs": ("x", "filter", "bias", "prelu_weights"), "outputs": ("out",)}


@gradient("FusedConv2D", **_CONV_SAVED)
def _fused_conv(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return _conv_gradient(dy, saved, attrs, depthwise=False)


@gradient("FusedDepthwiseConv2D", **_CONV_SAVED)
def _fused_depthwise_conv(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return _conv_gradient(dy, saved, attrs, depthwise=True)
