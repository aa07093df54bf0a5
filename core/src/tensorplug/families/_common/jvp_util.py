"""Helpers JVP rules are written with: registration, and the rules whole classes of kernels
share (linear kernels, kernels whose gradient is their own JVP)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families.creation.ops import zeros_like
from tensorplug.kernels.dispatcher import dispatcher_of
from tensorplug.registry.core_entries import CORE_ENTRIES, declare_jvp
from tensorplug.registry.jvps import JvpConfig, JvpFunc
from tensorplug.transforms.autodiff.tape import Entry, gradient_thunks

__all__ = ["jvp_rule", "linear", "elementwise_self_adjoint", "filled", "broadcast"]

Tangents = tuple[Tensor | None, ...]


def jvp_rule(*kernel_names: str) -> Callable[[JvpFunc], JvpFunc]:
    """Decorator: declare the function as the JVP rule of each of `kernel_names`
    (``rule(primals, tangents, outputs, attrs)``, see ``tensorplug.extend.JvpConfig``)."""
    def register(func: JvpFunc) -> JvpFunc:
        for name in kernel_names:
            declare_jvp(JvpConfig(name, func))
        return func
    return register


def filled(primals: Sequence[Tensor], tangents: Tangents,
           positions: Sequence[int] | None = None) -> list[Any]:
    """The tangents with zeros for the missing ones among `positions` (default: the floating
    inputs); other inputs (integer indices, shapes) are passed as their primals."""
    out: list[Any] = []
    for i, (x, t) in enumerate(zip(primals, tangents)):
        floating = x._dtype.is_inexact if positions is None else i in positions
        out.append((t if t is not None else zeros_like(x)) if floating else x)
    return out


_BROADCAST_TO = dispatcher_of("BroadcastTo")


def broadcast(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """x broadcast to `shape`, an output's shape its kernel already checked it broadcasts to."""
    return x if x.shape == shape else _BROADCAST_TO((x,), {"shape": shape})


def linear(*kernel_names: str, positions: Sequence[int] | None = None) -> None:
    """Declare, for kernels linear in their floating inputs (or in the inputs at `positions`,
    the others passed as they are): the tangent is the kernel itself run on the tangents."""
    for name in kernel_names:
        dispatcher = dispatcher_of(name)

        def rule(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                 attrs: Mapping[str, Any], dispatcher: Any = dispatcher) -> Any:
            return dispatcher(filled(primals, tangents, positions), attrs)
        declare_jvp(JvpConfig(name, rule))


def elementwise_self_adjoint(*kernel_names: str) -> None:
    """Declare, for elementwise kernels (one input, or several that broadcast) whose gradient
    passes back ``dy * df/dx_i`` for each input (JAX's convention: real or holomorphic f): the
    tangent is ``sum_i t_i * df/dx_i``, each term the gradient run on a broadcast tangent, with
    the inputs broadcast to the output's shape (so that the gradient sums nothing back). The
    gradient used is the core's (declared beside it): a later override of the gradient (a
    straight-through estimator, say) does not change forward mode; override the JVP rule too."""
    for name in kernel_names:
        config = CORE_ENTRIES["gradients"][name]

        def rule(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                 attrs: Mapping[str, Any], name: str = name, config: Any = config) -> Any:
            shape = outputs[0].shape
            inputs = tuple(x if x.shape == shape else broadcast(x, shape) for x in primals)
            entry = Entry(name, inputs, attrs, outputs)
            total = None
            for position, t in enumerate(tangents):
                if t is None:
                    continue
                dy = t if t.shape == shape else broadcast(t, shape)
                thunk = gradient_thunks(entry, dy, config)[position]
                if thunk is not None:
                    part = thunk()
                    total = part if total is None else total + part
            return total
        declare_jvp(JvpConfig(name, rule))


def multilinear(*kernel_names: str) -> None:
    """Declare, for kernels linear in each floating input separately (MatMul, Einsum, a
    convolution): the tangent is the sum, over the inputs with a tangent, of the kernel run with
    that input replaced by its tangent (``K(tx, y) + K(x, ty)``)."""
    for name in kernel_names:
        dispatcher = dispatcher_of(name)

        def rule(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                 attrs: Mapping[str, Any], dispatcher: Any = dispatcher) -> Any:
            total = None
            for i, t in enumerate(tangents):
                if t is not None:
                    part = dispatcher(primals[:i] + (t,) + primals[i + 1:], attrs)
                    total = part if total is None else total + part
            return total
        declare_jvp(JvpConfig(name, rule))


def affine(kernel_name: str, zeroed: Mapping[str, Any], positions: Sequence[int] | None = None) -> None:
    """Declare, for a kernel affine in its floating inputs (or those at `positions`) whose
    constant part an attribute gives (a fill value): the kernel run on the tangents with the
    attributes of `zeroed` set (the fill value 0)."""
    dispatcher = dispatcher_of(kernel_name)

    def rule(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Any:
        return dispatcher(filled(primals, tangents, positions), {**attrs, **zeroed})
    declare_jvp(JvpConfig(kernel_name, rule))
