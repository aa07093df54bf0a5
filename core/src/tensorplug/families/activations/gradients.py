"""Default gradients of the activation kernels and of SquaredDifference, Rsqrt and AddN.

As TF.js: Elu's gradient runs the backward kernel EluGrad on Elu's output, and Gelu's runs
GeluGrad, so that a backend can replace either (Relu's runs TF's ReluGrad, in gradients/
elementwise.py); the backward kernels have gradients of their own (linear in dy, so dy's part is
the backward kernel again; ReluGrad is piecewise constant in x), which keeps every order right.
Step is piecewise constant: its gradient is zero, as TF.js's. SquaredDifference of complex
inputs, (x - y) * conj(x - y), is not holomorphic: its cotangent is the one jax.vjp gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel, relu_grad, unbroadcast
from tensorplug.kernel_helpers import SELU_ALPHA, SELU_SCALE

Grads = Mapping[str, Callable[[], Any]]

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_CUBIC = 0.044715  # the tanh approximation's cubic term (kernel_helpers.gelu_values)


@gradient("Elu", outputs=("out",))
def _elu(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: kernel("EluGrad", dy, y, alpha=attrs["alpha"])}


@gradient("EluGrad", inputs=("dy", "y"))
def _elu_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    dy, y = saved  # EluGrad = dy * (1 where y > 0, else y + alpha)
    return {"dy": lambda: kernel("EluGrad", g, y, alpha=attrs["alpha"]),
            "y": lambda: tp.where(y > 0, 0.0, g * dy)}


@gradient("ReluGrad", inputs=("x",))
def _relu_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved  # ReluGrad = dy * (x > 0): linear in dy, flat in x
    return {"dy": lambda: relu_grad(g, x), "x": lambda: tp.zeros_like(x)}


@gradient("Selu", inputs=("x",))
def _selu(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.where(x > 0, dy * SELU_SCALE,
                                  dy * (SELU_SCALE * SELU_ALPHA) * tp.exp(tp.minimum(x, 0.0)))}


@gradient("LeakyRelu", inputs=("x",))
def _leaky_relu(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.where(x >= 0, dy, dy * attrs["alpha"])}


@gradient("Prelu", inputs=("x", "alpha"))
def _prelu(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, alpha = saved
    return {"x": lambda: tp.where(x > 0, dy, dy * alpha),
            "alpha": lambda: unbroadcast(tp.where(x > 0, 0.0, dy * x), alpha.shape)}


@gradient("Relu6", inputs=("x",))
def _relu6(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.where(tp.logical_and(x > 0, x <= 6), dy, 0.0)}


@gradient("Step")
def _step(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: tp.zeros_like(dy)}


@gradient("Softplus", inputs=("x",))
def _softplus(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy * tp.sigmoid(x)}


@gradient("LogSigmoid", inputs=("x",))
def _log_sigmoid(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy * tp.sigmoid(tp.negative(x))}


@gradient("Gelu", inputs=("x",))
def _gelu(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: kernel("GeluGrad", dy, x, approximate=attrs["approximate"])}


def _gelu_curvature(x: Tensor, approximate: bool) -> Tensor:
    """d2 gelu(x) / dx2: exact, phi(x) (2 - x**2) with phi the normal density; for the tanh
    form, (1 - t**2) (u' + x/2 (u'' - 2 t u'**2)), t = tanh(u)."""
    if not approximate:
        return tp.exp(x * x * -0.5) * (1 / math.sqrt(2 * math.pi)) * (2 - x * x)
    t = tp.tanh((x + x * x * x * _CUBIC) * _SQRT_2_OVER_PI)
    du = (x * x * (3 * _CUBIC) + 1) * _SQRT_2_OVER_PI
    ddu = x * (6 * _CUBIC * _SQRT_2_OVER_PI)
    return (1 - t * t) * (du + x * 0.5 * (ddu - t * du * du * 2))


@gradient("GeluGrad", inputs=("dy", "x"))
def _gelu_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    dy, x = saved
    approximate = attrs["approximate"]
    return {"dy": lambda: kernel("GeluGrad", g, x, approximate=approximate),
            "x": lambda: g * dy * _gelu_curvature(x, approximate)}


@gradient("SquaredDifference", inputs=("x", "y"))
def _squared_difference(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    cache: list[Tensor] = []

    def dx() -> Tensor:  # computed once if both inputs need it
        if not cache:
            d = x - y
            cache.append(dy * tp.conj(d) + tp.conj(dy * d) if d.dtype.is_complex else dy * d * 2)
        return cache[0]

    return {"x": lambda: unbroadcast(dx(), x.shape), "y": lambda: unbroadcast(tp.negative(dx()), y.shape)}


@gradient("Rsqrt", outputs=("out",))
def _rsqrt(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (r,) = saved
    return {"x": lambda: dy * r * r * r * -0.5}


@gradient("AddN", inputs=("xs",))
def _add_n(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"xs": lambda: [dy for _ in saved]}
