"""Batching rules of the control-flow kernels (JAX's): the same kernel over the vmapped
functions.

- Cond: with one index for the batch, a cond over the vmapped branches; with an index per
  example, every branch runs on the whole batch and each example takes its branch's outputs.
- While: the carry batched (every member, along axis 0); the loop runs while any example's
  predicate holds, and an example whose predicate no longer holds keeps its carry.
- Scan: the carry batched along axis 0, each xs with its batch axis moved to 1 (axis 0 is the
  one scanned); the stacked outputs come out batched along axis 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    aligned,
    batch_size,
    batching_rule,
    moved,
    spread,
)
from tensorplug.families.control_flow.graphs import Graph, call_graph
from tensorplug.families.control_flow.ops import scan, switch, while_loop
from tensorplug.families.elementwise.ops import greater_equal, where
from tensorplug.families.reductions.ops import any as any_of
from tensorplug.transforms.vmap.api import vmap


def _called(graph: Graph) -> Callable[..., tuple[Tensor, ...]]:
    return lambda *xs: tuple(call_graph(graph, xs))


@batching_rule("Cond")
def _cond(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[tuple[Tensor, ...], int]:
    index, operands = inputs[0], inputs[1:]
    size = batch_size(inputs, axes)
    branches = [vmap(_called(g), in_axes=tuple(axes[1:]), axis_size=size) for g in attrs["branches"]]
    if axes[0] is None:
        return tuple(switch(index, branches, *operands)), 0
    chosen = moved(index, axes[0], 0)
    results = [f(*operands) for f in branches]
    outputs = []
    for k, first in enumerate(results[0]):
        out = first  # (index >= b for every b up to the one chosen: the index clamped into range)
        for b in range(1, len(results)):
            out = where(aligned(greater_equal(chosen, b), 0, out.ndim - 1), results[b][k], out)
        outputs.append(out)
    return tuple(outputs), 0


def _batched(values: Sequence[Tensor], axes: Axes, size: int) -> tuple[Tensor, ...]:
    return tuple(spread(v, a, size, 0) for v, a in zip(values, axes))


@batching_rule("While")
def _while(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[tuple[Tensor, ...], int]:
    n_consts = attrs["n_consts"]
    consts, const_axes = tuple(inputs[:n_consts]), tuple(axes[:n_consts])
    size = batch_size(inputs, axes)
    carry = _batched(inputs[n_consts:], axes[n_consts:], size)
    cond = vmap(lambda k, c: _called(attrs["cond"])(*k, *c)[0], in_axes=(const_axes, 0), axis_size=size)
    body = vmap(lambda k, c: _called(attrs["body"])(*k, *c), in_axes=(const_axes, 0), axis_size=size)

    def step(c: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
        live, new = cond(consts, c), body(consts, c)
        return tuple(where(aligned(live, 0, n.ndim - 1), n, old) for n, old in zip(new, c))

    return tuple(while_loop(lambda c: any_of(cond(consts, c)), step, carry)), 0


@batching_rule("Scan")
def _scan(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[tuple[Tensor, ...], tuple[int, ...]]:
    body, n_consts, n_carry = attrs["body"], attrs["n_consts"], attrs["n_carry"]
    size = batch_size(inputs, axes)
    consts, const_axes = tuple(inputs[:n_consts]), tuple(axes[:n_consts])
    carry = _batched(inputs[n_consts:n_consts + n_carry], axes[n_consts:n_consts + n_carry], size)
    xs_in, xs_axes = inputs[n_consts + n_carry:], axes[n_consts + n_carry:]
    xs = tuple(x if a is None else moved(x, a, 1) for x, a in zip(xs_in, xs_axes))
    slice_axes = tuple(None if a is None else 0 for a in xs_axes)

    def one(k: tuple[Tensor, ...], c: tuple[Tensor, ...], x: tuple[Tensor, ...]) -> Any:
        out = _called(body)(*k, *c, *x)
        return out[:n_carry], out[n_carry:]

    batched = vmap(one, in_axes=(const_axes, 0, slice_axes), axis_size=size)
    last, ys = scan(lambda c, x: batched(consts, c, x), carry, xs, length=attrs["length"],
                    reverse=attrs["reverse"])
    return (*last, *ys), (0,) * n_carry + (1,) * len(ys)
