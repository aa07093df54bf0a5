"""The generic control-flow kernels: Cond, While and Scan for any backend, over its own kernels.
A branch or a loop body runs as its graph's plan on the backend (``graphs.run_graph``: planned
on the first run, replayed after); the loop itself is Python. A backend with control flow of
its own registers its kernels instead (jax: lax.switch, lax.while_loop, lax.scan), and the
conformance kit checks them against these.

Their outputs are never their inputs' own array objects, nor one object twice: where a branch or
a loop passes a value through, the output is a new view of it (the backend's Reshape to the same
shape). tp.jit's planner knows an array by its identity; an output that is an input would make
a plan read the one where the other was meant, once a replay takes another branch."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.families.control_flow.graphs import kernel_function_of, run_graph
from tensorplug.registry.generic_kernels import declare_generic_kernel

__all__ = ["cond_kernel", "while_kernel", "scan_kernel"]


def _distinct(outputs: list[Any], inputs: tuple[Any, ...], backend: Backend) -> tuple[Any, ...]:
    """`outputs`, each a distinct object, none of them an input's (a new view where it was)."""
    taken = {id(a) for a in inputs}
    out = []
    for o in outputs:
        if id(o) in taken:
            o = kernel_function_of("Reshape", backend)((o,), {"shape": tuple(backend.shape_of(o))}, backend)
        taken.add(id(o))
        out.append(o)
    return tuple(out)


def cond_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Backend) -> tuple[Any, ...]:
    branches = attrs["branches"]
    index = int(np.asarray(backend.to_numpy(inputs[0])))
    chosen = branches[min(max(index, 0), len(branches) - 1)]
    return _distinct(run_graph(chosen, backend, inputs[1:]), inputs, backend)


def while_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Backend) -> tuple[Any, ...]:
    cond, body, n_consts = attrs["cond"], attrs["body"], attrs["n_consts"]
    consts, carry = list(inputs[:n_consts]), list(inputs[n_consts:])
    while bool(np.asarray(backend.to_numpy(run_graph(cond, backend, consts + carry)[0]))):
        carry = run_graph(body, backend, consts + carry)
    return _distinct(carry, inputs, backend)


def scan_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Backend) -> tuple[Any, ...]:
    body, n_consts, n_carry = attrs["body"], attrs["n_consts"], attrs["n_carry"]
    length, reverse = attrs["length"], attrs["reverse"]
    consts = list(inputs[:n_consts])
    carry = list(inputs[n_consts:n_consts + n_carry])
    xs = inputs[n_consts + n_carry:]
    unpack = kernel_function_of("Unpack", backend)
    slices = [unpack((x,), {"axis": 0}, backend) if length else () for x in xs]
    ys: list[list[Any]] = [[] for _ in body.outputs[n_carry:]]
    for t in (range(length - 1, -1, -1) if reverse else range(length)):
        out = run_graph(body, backend, consts + carry + [s[t] for s in slices])
        carry = out[:n_carry]
        for stacked, y in zip(ys, out[n_carry:]):
            stacked.append(y)
    if reverse:
        for stacked in ys:
            stacked.reverse()
    if length:
        stack = kernel_function_of("Stack", backend)
        outputs = [stack(tuple(stacked), {"axis": 0}, backend) for stacked in ys]
    else:  # (no step ran: empty outputs of the body's shapes)
        outputs = [backend.from_numpy(np.zeros((0, *info.shape), info.dtype.numpy))
                   for info in body.out_infos[n_carry:]]
    return _distinct([*carry, *outputs], inputs, backend)


declare_generic_kernel("Cond", cond_kernel)
declare_generic_kernel("While", while_kernel)
declare_generic_kernel("Scan", scan_kernel)
