"""JVP rules of the activation kernels and of SquaredDifference, Rsqrt and AddN.

Each activation is elementwise with a real (or, for Rsqrt, holomorphic) derivative, and its
gradient passes back ``dy * f'(x)``: the gradient run on the tangent is the JVP. The backward
kernels EluGrad and GeluGrad are ``dy * f'(x)`` too, linear in dy and elementwise in their other
input, so the same holds for them; Prelu broadcasts its weights, which the shared rule handles.
ReluGrad is linear in dy and flat in x: its tangent is ReluGrad(t_dy, x). Step is piecewise
constant (zero tangent). SquaredDifference of complex inputs, |x - y|^2, is
not holomorphic: its tangent is 2 Re(conj(x - y) (tx - ty)). AddN is linear.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import relu_grad
from tensorplug.families._common.jvp_util import elementwise_self_adjoint, jvp_rule, linear

Tangents = tuple[Tensor | None, ...]

elementwise_self_adjoint("Elu", "EluGrad", "Selu", "LeakyRelu", "Prelu", "Relu6", "Softplus",
                         "LogSigmoid", "Gelu", "GeluGrad", "Rsqrt")
linear("AddN")


@jvp_rule("Step")
def _step(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> None:
    return None


@jvp_rule("ReluGrad")
def _relu_grad(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
               attrs: Mapping[str, Any]) -> Tensor | None:
    (_, x), (t_dy, _) = primals, tangents  # linear in dy, flat in x: x's tangent adds nothing
    return None if t_dy is None else relu_grad(t_dy, x)


@jvp_rule("SquaredDifference")
def _squared_difference(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                        attrs: Mapping[str, Any]) -> Tensor:
    (x, y), (tx, ty) = primals, tangents
    if tx is None:
        assert ty is not None  # (forward mode calls a rule only with some tangent)
        td = tp.negative(ty)
    else:
        td = tx if ty is None else tx - ty
    d = x - y
    if d.dtype.is_complex:
        return tp.astype(tp.real(tp.conj(d) * td) * 2.0, d.dtype)
    return d * td * 2.0
