"""JVP rules of the control-flow kernels: the same kernel over the functions' JVPs, carrying
tangents beside the values (JAX's rules): a cond whose branches give their outputs' tangents, a
while loop and a scan whose carry holds the carry and its tangent. A missing tangent (None) is
a zero one; an integer value's tangent is carried along and ignored."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import jvp_rule
from tensorplug.families.control_flow.graphs import Graph, call_graph
from tensorplug.families.control_flow.ops import scan, switch, while_loop
from tensorplug.families.creation.ops import zeros_like
from tensorplug.transforms.autodiff.forward import jvp

Tangents = Sequence[Tensor | None]
Pushforward = Callable[[Sequence[Tensor], Sequence[Tensor]], tuple[list[Tensor], list[Tensor]]]


def _filled(values: Sequence[Tensor], tangents: Tangents) -> tuple[Tensor, ...]:
    return tuple(t if t is not None else zeros_like(x) for x, t in zip(values, tangents))


def _pushforward(graph: Graph) -> Pushforward:
    """``(inputs, tangents) -> (outputs, output tangents)`` of `graph`."""
    def pushforward(inputs: Sequence[Tensor], tangents: Sequence[Tensor]) -> Any:
        out, t_out = jvp(lambda *xs: tuple(call_graph(graph, xs)), tuple(inputs), tuple(tangents))
        return list(out), list(t_out)
    return pushforward


def _inexact_only(outputs: Sequence[Tensor], tangents: Sequence[Tensor]) -> list[Tensor | None]:
    return [t if o._dtype.is_inexact else None for o, t in zip(outputs, tangents)]


@jvp_rule("Cond")
def _cond(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> list[Tensor | None]:
    index, operands = primals[0], primals[1:]
    filled = _filled(operands, tangents[1:])

    def branch(graph: Graph) -> Callable[..., tuple[Tensor, ...]]:
        push = _pushforward(graph)
        return lambda xs, ts: tuple(push(xs, ts)[1])

    found = switch(index, [branch(g) for g in attrs["branches"]], tuple(operands), filled)
    return _inexact_only(outputs, found)


@jvp_rule("While")
def _while(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
           attrs: Mapping[str, Any]) -> list[Tensor | None]:
    cond, body, n_consts = attrs["cond"], attrs["body"], attrs["n_consts"]
    consts, carry = primals[:n_consts], primals[n_consts:]
    t_consts, t_carry = _filled(consts, tangents[:n_consts]), _filled(carry, tangents[n_consts:])
    push = _pushforward(body)

    def step(pair: Any) -> Any:
        values, ts = pair
        out, t_out = push((*consts, *values), (*t_consts, *ts))
        return tuple(out), tuple(t_out)

    def holds(pair: Any) -> Tensor:
        return call_graph(cond, [*consts, *pair[0]])[0]

    _, found = while_loop(holds, step, (tuple(carry), t_carry))
    return _inexact_only(outputs, found)


@jvp_rule("Scan")
def _scan(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> list[Tensor | None]:
    body, n_consts, n_carry = attrs["body"], attrs["n_consts"], attrs["n_carry"]
    filled = _filled(primals, tangents)
    consts, t_consts = primals[:n_consts], filled[:n_consts]
    carry, t_carry = primals[n_consts:n_consts + n_carry], filled[n_consts:n_consts + n_carry]
    xs, t_xs = primals[n_consts + n_carry:], filled[n_consts + n_carry:]
    push = _pushforward(body)

    def step(pair: Any, x_pair: Any) -> Any:
        out, t_out = push((*consts, *pair[0], *x_pair[0]), (*t_consts, *pair[1], *x_pair[1]))
        return (tuple(out[:n_carry]), tuple(t_out[:n_carry])), (tuple(out[n_carry:]), tuple(t_out[n_carry:]))

    (_, t_last), (_, t_ys) = scan(step, (tuple(carry), t_carry), (tuple(xs), t_xs), length=attrs["length"],
                                  reverse=attrs["reverse"])
    return _inexact_only(outputs, [*t_last, *t_ys])
