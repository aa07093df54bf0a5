"""Gradients of the control-flow kernels, written with ops (the control-flow ops among them), so
that they run on any backend, under tp.jit, and differentiate again:

- Cond: the chosen branch's pullback, as a cond over every branch's pullback (each runs its
  branch forward again, then back).
- Scan: a scan forward that keeps the carry entering each step, then a scan the other way whose
  step is the body's pullback at that carry, summing the consts' gradients in its carry.
- While: refused (its trip count is known only when it runs, as in JAX): tp.fori_loop with
  Python int bounds or tp.scan instead.

Only floating (and complex) inputs get a gradient; an integer carry (a loop counter) is run
along, not differentiated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.gradient_util import gradient
from tensorplug.families.control_flow.graphs import Graph, call_graph
from tensorplug.families.control_flow.ops import scan, switch
from tensorplug.families.creation.ops import zeros_like
from tensorplug.families.elementwise.ops import add
from tensorplug.transforms.autodiff.api import vjp

Grads = Mapping[str, Callable[[], Any]]

__all__ = ["inexact", "substituted"]


def inexact(tensors: Sequence[Any]) -> list[int]:
    """The positions of the floating (real or complex) tensors or infos among `tensors`."""
    return [k for k, t in enumerate(tensors) if (t._dtype if isinstance(t, Tensor) else t.dtype).is_inexact]


def substituted(values: Sequence[Tensor], positions: Sequence[int], new: Sequence[Tensor]) -> list[Tensor]:
    """`values` with the ones at `positions` replaced by `new`."""
    out = list(values)
    for k, t in zip(positions, new):
        out[k] = t
    return out


def _pullback(graph: Graph, wrt: list[int], outs: list[int]) -> Callable[..., tuple[Tensor, ...]]:
    """``(inputs, cotangents) -> gradients`` of `graph`'s outputs at `outs` with respect to its
    inputs at `wrt`."""
    def pullback(inputs: tuple[Tensor, ...], cotangents: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
        def f(*diff: Tensor) -> tuple[Tensor, ...]:
            out = call_graph(graph, substituted(inputs, wrt, diff))
            return tuple(out[k] for k in outs)
        _, pull = vjp(f, *[inputs[k] for k in wrt])
        return tuple(pull(cotangents))
    return pullback


def _cotangents(dy: Any) -> tuple[Tensor, ...]:
    return tuple(dy) if isinstance(dy, tuple) else (dy,)


@gradient("Cond", inputs=("operands",))
def _cond(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    index, operands = saved[0], saved[1:]
    branches = attrs["branches"]
    dys = _cotangents(dy)

    def parts() -> list[Tensor | None]:
        wrt, outs = inexact(operands), inexact(branches[0].out_infos)
        grads: list[Tensor | None] = [None] * len(saved)
        if not wrt or not outs:
            return grads
        pullbacks = [_pullback(g, wrt, outs) for g in branches]
        found = switch(index, pullbacks, tuple(operands), tuple(dys[k] for k in outs))
        for k, g in zip(wrt, found):
            grads[1 + k] = g
        return grads

    return {"operands": parts}


@gradient("While")
def _while(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    raise AutodiffError(
        "tp.while_loop (kernel 'While') is not reverse-differentiable: its trip count is known only "
        "when it runs, as in JAX. Use tp.fori_loop with Python int bounds (a tp.scan), or tp.scan with "
        "a fixed length; forward mode (tp.jvp) works through it.")


@gradient("Scan", inputs=("operands",))
def _scan(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    body, n_consts, n_carry = attrs["body"], attrs["n_consts"], attrs["n_carry"]
    length, reverse = attrs["length"], attrs["reverse"]
    consts, init, xs = saved[:n_consts], saved[n_consts:n_consts + n_carry], saved[n_consts + n_carry:]
    dys = _cotangents(dy)

    def parts() -> list[Tensor | None]:
        kw, cw, xw = inexact(consts), inexact(init), inexact(xs)
        yw = inexact(body.out_infos[n_carry:])
        grads: list[Tensor | None] = [None] * len(saved)
        if not (kw or cw or xw):
            return grads

        def keep(carry: tuple[Tensor, ...], x: tuple[Tensor, ...]) -> Any:
            out = call_graph(body, [*consts, *carry, *x])
            return tuple(out[:n_carry]), tuple(carry)

        _, carries = scan(keep, tuple(init), tuple(xs), length=length, reverse=reverse)
        wrt = kw + [n_consts + c for c in cw] + [n_consts + n_carry + j for j in xw]
        outs = cw + [n_carry + y for y in yw]
        pullback = _pullback(body, wrt, outs)

        def back(acc: Any, step: Any) -> Any:
            d_carry, d_consts = acc
            carry, x, d_y = step
            found = pullback((*consts, *carry, *x), (*d_carry, *d_y))
            gk, gc, gx = found[:len(kw)], found[len(kw):len(kw) + len(cw)], found[len(kw) + len(cw):]
            return (gc, tuple(add(a, b) for a, b in zip(d_consts, gk))), gx

        d_last = tuple(dys[c] for c in cw)
        d_ys = tuple(dys[n_carry + y] for y in yw)
        start = (d_last, tuple(zeros_like(consts[k]) for k in kw))
        (d_init, d_consts), d_xs = scan(back, start, (carries, tuple(xs), d_ys), length=length,
                                        reverse=not reverse)
        for k, g in zip(kw, d_consts):
            grads[k] = g
        for c, g in zip(cw, d_init):
            grads[n_consts + c] = g
        for j, g in zip(xw, d_xs):
            grads[n_consts + n_carry + j] = g
        return grads

    return {"operands": parts}
