"""JVP rules of the elementwise kernels.

A unary kernel whose gradient passes back ``dy * f'(x)`` (every real one, and the holomorphic
complex ones: JAX's convention) has the gradient as its JVP: ``t * f'(x)``. A binary kernel
likewise, once its inputs are broadcast to the output's shape (so that its gradient sums
nothing back): ``tx * df/dx + ty * df/dy``. The non-holomorphic kernels (Abs, Real, Imag of
complex inputs) and Cast have rules of their own; Where is linear in its two branches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import broadcast, elementwise_self_adjoint, jvp_rule

Tangents = tuple[Tensor | None, ...]

elementwise_self_adjoint(
    "Negative", "Conj", "Square", "Exp", "Expm1", "Log", "Log1p", "Sqrt", "Sin", "Cos", "Tan", "Tanh",
    "Sigmoid", "Erfinv", "Cosh", "Sinh", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh", "Relu", "Clip",
    "Sign", "Floor", "Ceil", "Round", "Trunc",
    "Divide", "FloorDivide", "Pow", "Mod", "Atan2", "Hypot", "Copysign",
    "Nextafter", "Maximum", "Minimum",
)


@jvp_rule("Where")
def _where(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
           attrs: Mapping[str, Any]) -> Tensor:
    """where(condition, tx, ty), linear in the branches; a missing tangent is a scalar zero
    (no zeros of the output's shape: the kernel broadcasts)."""
    condition, (_, tx, ty), shape = primals[0], tangents, outputs[0].shape
    return broadcast(tp.where(condition, 0.0 if tx is None else tx, 0.0 if ty is None else ty), shape)


# (the binary kernels on every layer's path: written out, cheaper than the gradient's way)
@jvp_rule("Add")
def _add(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> Tensor:
    (tx, ty), shape = tangents, outputs[0].shape
    if tx is None or ty is None:
        return broadcast(ty if tx is None else tx, shape)  # type: ignore[arg-type]
    return tx + ty


@jvp_rule("Subtract")
def _subtract(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
              attrs: Mapping[str, Any]) -> Tensor:
    (tx, ty), shape = tangents, outputs[0].shape
    if ty is None:
        return broadcast(tx, shape)  # type: ignore[arg-type]
    return broadcast(tp.negative(ty), shape) if tx is None else tx - ty


@jvp_rule("Multiply")
def _multiply(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
              attrs: Mapping[str, Any]) -> Tensor:
    (x, y), (tx, ty), shape = primals, tangents, outputs[0].shape
    part_x = None if tx is None else tx * y
    part_y = None if ty is None else x * ty
    if part_x is None or part_y is None:
        return broadcast(part_y if part_x is None else part_x, shape)  # type: ignore[arg-type]
    return part_x + part_y


@jvp_rule("Abs")
def _abs(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> Tensor:
    (x,), (t,), (out,) = primals, tangents, outputs
    if x.dtype.is_complex:  # d|z| = Re(conj(z) dz) / |z| (0 at z == 0, as JAX)
        return tp.real(tp.conj(x) * t) / tp.where(out == 0, 1.0, out)
    return t * tp.sign(x)


@jvp_rule("Real")
def _real(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> Tensor:
    return tp.real(tangents[0])


@jvp_rule("Imag")
def _imag(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> Tensor:
    return tp.imag(tangents[0])


@jvp_rule("Cast")
def _cast(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> Tensor | None:
    (t,), (out,) = tangents, outputs
    if t is None or not out.dtype.is_inexact:
        return None
    if t.dtype.is_complex and not out.dtype.is_complex:  # complex to real keeps the real part
        t = tp.real(t)
    return tp.astype(t, out.dtype)


@jvp_rule("Copy")
def _copy(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> Tensor | None:
    return tangents[0]  # (the identity: the tangent's own buffer is never written either)
