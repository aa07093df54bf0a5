"""Default gradients of the convolution kernels, as TF.js's Conv2D_grad.ts and
Conv2DBackpropInput_grad.ts write them: a convolution is linear in its input and in its filter,
and its two backprop kernels are those maps transposed, so the gradient of each of the three
kernels is one of the other two (or the convolution itself) with the same geometry. Each is
thus differentiable again, to any order; the same holds for the 3-D kernels."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel
from tensorplug.families.convolution.spec import KERNEL_NAMES

Grads = Mapping[str, Callable[[], Tensor]]
_GEOMETRY = ("strides", "padding", "dilations", "groups", "data_format")


def _geometry(attrs: Mapping[str, Any]) -> dict[str, Any]:
    return {name: attrs[name] for name in _GEOMETRY}


def _register(conv: str, backprop_input: str, backprop_filter: str) -> None:
    @gradient(conv, inputs=("x", "filter"))
    def _conv(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        x, w = saved
        geo = _geometry(attrs)
        return {"x": lambda: kernel(backprop_input, dy, w, input_shape=x.shape, **geo),
                "filter": lambda: kernel(backprop_filter, x, dy, filter_shape=w.shape, **geo)}

    @gradient(backprop_input, inputs=("dy", "filter"))
    def _input(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        dy, w = saved
        geo = _geometry(attrs)
        return {"dy": lambda: kernel(conv, g, w, **geo),
                "filter": lambda: kernel(backprop_filter, g, dy, filter_shape=w.shape, **geo)}

    @gradient(backprop_filter, inputs=("x", "dy"))
    def _filter(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        x, dy = saved
        geo = _geometry(attrs)
        return {"x": lambda: kernel(backprop_input, dy, g, input_shape=x.shape, **geo),
                "dy": lambda: kernel(conv, x, g, **geo)}


for _names in KERNEL_NAMES.values():
    _register(*_names)
