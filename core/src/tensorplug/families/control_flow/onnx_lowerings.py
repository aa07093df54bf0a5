"""ONNX lowerings of the control-flow kernels, their traced functions written as subgraphs:
Cond as ``If`` (a chain of them for more than two branches; the branches read the operands
from the outer scope), While as ``Loop`` without a trip count (the predicate computed before
the loop and at the end of each step), Scan as ``Loop`` with a trip count of `length` (the xs'
length as fed, so a time axis may be dynamic; each step gathers its slice of the xs, and the
ys leave as the loop's scan outputs, reversed after the loop when the scan runs from the end)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensorplug.dtypes import bool_, int64
from tensorplug.exporting.context import LoweringContext, Subgraph
from tensorplug.families.control_flow.graphs import Graph
from tensorplug.kernels.kernel_spec import TensorInfo
from tensorplug.registry.core_entries import declare_onnx_lowering
from tensorplug.registry.onnx_lowerings import OnnxLowering

__all__ = ["lower_cond", "lower_while", "lower_scan"]

_ITERATION = TensorInfo((), int64)  # (a Loop body's first two inputs: the step number, the condition)
_CONDITION = TensorInfo((), bool_)


def _branch(ctx: LoweringContext, graph: Graph, operands: Sequence[str]) -> Subgraph:
    """`graph` on the outer `operands` as an ``If`` branch (no inputs of its own)."""
    body = ctx.nested()
    outputs = body.lower_graph(graph, operands)
    return body.subgraph((), list(zip(outputs, graph.out_infos)))


def _chain(ctx: LoweringContext, index: str, branches: Sequence[Graph], operands: Sequence[str],
           first: int, outputs: Sequence[str]) -> None:
    """``If index > first`` (branches[first + 1:], chained) else branches[first], into `outputs`:
    the index clamped as Cond clamps it (below 0: the first branch, past the end: the last)."""
    later: Subgraph
    if first == len(branches) - 2:
        later = _branch(ctx, branches[-1], operands)
    else:
        inner = ctx.nested()
        names = [inner.fresh("branch_out") for _ in outputs]
        _chain(inner, index, branches, operands, first + 1, names)
        later = inner.subgraph((), list(zip(names, branches[0].out_infos)))
    above = ctx.node("Greater", [index, ctx.constant(first, np.int32)])
    ctx.node("If", [above], outputs, then_branch=later, else_branch=_branch(ctx, branches[first], operands))


def lower_cond(ctx: LoweringContext) -> None:
    branches = ctx.attrs["branches"]
    if len(branches) == 1:
        for name, out in zip(ctx.lower_graph(branches[0], ctx.inputs[1:]), ctx.outputs):
            ctx.node("Identity", [name], out)
        return
    _chain(ctx, ctx.inputs[0], branches, ctx.inputs[1:], 0, ctx.outputs)


def lower_while(ctx: LoweringContext) -> None:
    cond, body_graph, n_consts = ctx.attrs["cond"], ctx.attrs["body"], ctx.attrs["n_consts"]
    consts, carry = ctx.inputs[:n_consts], ctx.inputs[n_consts:]
    (first,) = ctx.lower_graph(cond, ctx.inputs)
    body = ctx.nested()
    step, holds = body.fresh("iteration"), body.fresh("condition")
    carried = [body.fresh("carry") for _ in carry]
    after = body.lower_graph(body_graph, [*consts, *carried])
    (again,) = body.lower_graph(cond, [*consts, *after])
    infos = ctx.output_infos
    graph = body.subgraph([(step, _ITERATION), (holds, _CONDITION), *zip(carried, infos)],
                          [(again, _CONDITION), *zip(after, infos)])
    ctx.node("Loop", ["", first, *carry], ctx.outputs, body=graph)


def lower_scan(ctx: LoweringContext) -> None:
    body_graph = ctx.attrs["body"]
    n_consts, n_carry, length = ctx.attrs["n_consts"], ctx.attrs["n_carry"], ctx.attrs["length"]
    consts = ctx.inputs[:n_consts]
    carry, xs = ctx.inputs[n_consts:n_consts + n_carry], ctx.inputs[n_consts + n_carry:]
    finals, stacked = ctx.outputs[:n_carry], ctx.outputs[n_carry:]
    if length == 0:  # (no step runs: the carry as given, empty ys)
        for name, out in zip(carry, finals):
            ctx.node("Identity", [name], out)
        for info, out in zip(ctx.output_infos[n_carry:], stacked):
            ctx.node("Identity", [ctx.constant(np.zeros(info.shape, info.dtype.numpy))], out)
        return
    reverse = bool(ctx.attrs["reverse"])
    # (the steps: the xs' length as fed, so that an axis of time left dynamic stays so)
    steps = ctx.node("Gather", [ctx.node("Shape", [xs[0]]), ctx.ints(0)], axis=0) if xs else ctx.ints(length)
    last = ctx.node("Sub", [steps, ctx.ints(1)]) if reverse else ""
    body = ctx.nested()
    step, holds = body.fresh("iteration"), body.fresh("condition")
    carried = [body.fresh("carry") for _ in carry]
    t = body.node("Sub", [last, step]) if reverse else step
    slices = [body.node("Gather", [x, t], axis=0) for x in xs]
    results = body.lower_graph(body_graph, [*consts, *carried, *slices])
    graph = body.subgraph([(step, _ITERATION), (holds, _CONDITION), *zip(carried, ctx.output_infos)],
                          [(holds, _CONDITION), *zip(results, body_graph.out_infos)])
    ys = [ctx.fresh("ys") for _ in stacked] if reverse else list(stacked)
    ctx.node("Loop", [steps, ctx.constant(True, np.bool_), *carry], [*finals, *ys], body=graph)
    if reverse:  # (the loop stacked the ys from the last slice to the first)
        for y, out in zip(ys, stacked):
            ctx.node("Slice", [y, ctx.ints([-1]), ctx.ints([-(2 ** 62)]), ctx.ints([0]), ctx.ints([-1])], out)


# (complex values pass through as the (real, imaginary) pairs the graph holds them as; the
# kernels inside are checked on their own)
for _kernel, _lower in (("Cond", lower_cond), ("While", lower_while), ("Scan", lower_scan)):
    declare_onnx_lowering(OnnxLowering(_kernel, _lower, complex_pairs=True))
