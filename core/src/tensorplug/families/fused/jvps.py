"""JVP rules of the fused kernels: y = activation(product + bias), unfused as their gradients
are. The product is bilinear (``K(ta, b) + K(a, tb)``: MatMul, or Conv2D with the depthwise
filter as a grouped one), the bias adds its tangent, and the activation's derivative multiplies
the pre-activation's tangent, taken from the output where it tells (the gradients'
``pre_activation_gradient``, which is elementwise: the same map runs on a tangent); 'prelu'
adds its weights' tangent times the negative part of the pre-activation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import kernel
from tensorplug.families._common.jvp_util import jvp_rule
from tensorplug.families.fused.gradients import FUSED_GEOMETRY, pre_activation_gradient, with_bias
from tensorplug.families.fused.spec import depthwise_as_grouped

Tangents = tuple[Tensor | None, ...]
Product = Callable[[Tensor, Tensor], Tensor]


def _fused_tangent(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                   attrs: Mapping[str, Any], product: Product, channels_axis: int | None) -> Tensor:
    """The tangent of activation(product(first, second) + bias)."""
    first, second, bias, prelu = primals
    t_first, t_second, t_bias, t_prelu = tangents
    (y,) = outputs
    tz = None
    if t_first is not None:
        tz = product(t_first, second)
    if t_second is not None:
        part = product(first, t_second)
        tz = part if tz is None else tz + part
    if t_bias is not None and attrs["has_bias"]:
        tz = with_bias(tp.zeros_like(y) if tz is None else tz, t_bias, attrs, channels_axis)
    cache: list[Tensor] = []

    def z() -> Tensor:
        if not cache:
            cache.append(with_bias(product(first, second), bias, attrs, channels_axis))
        return cache[0]

    ty = None if tz is None else pre_activation_gradient(tz, y, attrs, z, prelu)
    if t_prelu is not None and attrs["activation"] == "prelu":
        part = tp.where(z() > 0, 0.0, z() * t_prelu)
        ty = part if ty is None else ty + part
    return tp.zeros_like(y) if ty is None else ty


@jvp_rule("FusedMatMul")
def _fused_matmul(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                  attrs: Mapping[str, Any]) -> Tensor:
    transposes = {"transpose_x": attrs["transpose_a"], "transpose_y": attrs["transpose_b"]}

    def product(a: Tensor, b: Tensor) -> Tensor:
        return kernel("MatMul", a, b, **transposes)

    return _fused_tangent(primals, tangents, outputs, attrs, product, None)


def _conv_tangent(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                  attrs: Mapping[str, Any], depthwise: bool) -> Tensor:
    geo = {name: attrs[name] for name in FUSED_GEOMETRY}
    w = primals[1]
    geo["groups"] = max(w.shape[2], 1) if depthwise else attrs["groups"]

    def product(x: Tensor, filt: Tensor) -> Tensor:
        grouped = tp.reshape(filt, depthwise_as_grouped(filt.shape)) if depthwise else filt
        return kernel("Conv2D", x, grouped, **geo)

    channels_axis = 1 if attrs["data_format"][1] == "C" else 3
    return _fused_tangent(primals, tangents, outputs, attrs, product, channels_axis)


@jvp_rule("FusedConv2D")
def _fused_conv(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                attrs: Mapping[str, Any]) -> Tensor:
    return _conv_tangent(primals, tangents, outputs, attrs, depthwise=False)


@jvp_rule("FusedDepthwiseConv2D")
def _fused_depthwise_conv(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                          attrs: Mapping[str, Any]) -> Tensor:
    return _conv_tangent(primals, tangents, outputs, attrs, depthwise=True)
