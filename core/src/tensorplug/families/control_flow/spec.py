"""Kernel specs of the control-flow kernels, JAX's higher-order primitives: Cond (one of several
traced branches, chosen by an index), While (a traced body repeated while a traced predicate
holds) and Scan (a traced body over the leading axis of its inputs, carrying a state). Their
functions are ``Graph`` attributes (``graphs.py``); each takes its inputs as one variadic list:

- Cond: ``[index, *operands]``, `index` an int32 scalar (clamped into range); every branch
  takes the operands and gives outputs of one set of shapes and dtypes.
- While: ``[*consts, *carry]``; `cond` takes them all and gives a bool scalar, `body` gives
  the next carry (of the carry's shapes and dtypes); the outputs are the last carry.
- Scan: ``[*consts, *carry, *xs]``; `body` takes the consts, the carry and one slice of each
  xs along axis 0, and gives the next carry then one slice of each output; the outputs are
  the last carry, then the slices stacked (`length` of them; from the end if `reverse`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import int32
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families.control_flow.graphs import Graph
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo, describe
from tensorplug.kernels.shape_rules import as_bool, as_int
from tensorplug.registry.core_entries import declare_spec

__all__ = ["COND", "WHILE", "SCAN", "check_infos"]


def _graph(value: Any) -> Graph:
    if not isinstance(value, Graph):
        raise TypeError(f"expected a traced function (a Graph: tp.cond, tp.while_loop and tp.scan "
                        f"trace them), got {type(value).__name__}")
    return value


def _graphs(value: Any) -> tuple[Graph, ...]:
    if not isinstance(value, (tuple, list)) or not value:
        raise TypeError(f"expected a non-empty tuple of Graphs, got {type(value).__name__}")
    return tuple(_graph(g) for g in value)


def check_infos(kernel: str, what: str, got: Sequence[TensorInfo], expected: Sequence[TensorInfo]) -> None:
    """ShapeError (DTypeError for dtypes) naming `kernel` unless `got` matches `expected`."""
    if len(got) != len(expected):
        raise ShapeError(f"kernel '{kernel}': {what}: expected {len(expected)} tensors, got {len(got)}.")
    for i, (g, e) in enumerate(zip(got, expected)):
        if tuple(g.shape) != tuple(e.shape) or g.dtype is not e.dtype:
            error = DTypeError if tuple(g.shape) == tuple(e.shape) else ShapeError
            raise error(f"kernel '{kernel}': {what}, tensor {i}: expected {describe(e)}, got {describe(g)}.")


def _cond_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    index, operands = infos[0], infos[1:]
    if index.shape != () or index.dtype is not int32:
        raise DTypeError(f"kernel 'Cond': its first input is the branch index, an int32 scalar; got "
                         f"{describe(index)}.")
    branches = attrs["branches"]
    for k, g in enumerate(branches):
        check_infos("Cond", f"the operands of branch {k}", operands, g.in_infos)
        check_infos("Cond", f"the outputs of branch {k}", g.out_infos, branches[0].out_infos)
    return list(branches[0].out_infos)


def _while_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    cond, body, n_consts = attrs["cond"], attrs["body"], attrs["n_consts"]
    check_infos("While", "the inputs of cond", infos, cond.in_infos)
    check_infos("While", "the inputs of body", infos, body.in_infos)
    out = cond.out_infos
    if len(out) != 1 or out[0].shape != () or not out[0].dtype.is_bool:
        raise DTypeError(f"kernel 'While': cond must give one bool scalar, gives "
                         f"{', '.join(describe(i) for i in out)}.")
    carry = list(infos[n_consts:])
    check_infos("While", "the carry body gives", body.out_infos, carry)
    return carry


def _scan_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    body, n_consts, n_carry, length = attrs["body"], attrs["n_consts"], attrs["n_carry"], attrs["length"]
    if length < 0:
        raise ShapeError(f"kernel 'Scan': length must be >= 0, got {length}.")
    consts, carry, xs = infos[:n_consts], infos[n_consts:n_consts + n_carry], infos[n_consts + n_carry:]
    for i, x in enumerate(xs):
        if not x.shape or x.shape[0] != length:
            raise ShapeError(f"kernel 'Scan': xs tensor {i} ({describe(x)}) must have length {length} "
                             "along axis 0.")
    slices = [TensorInfo(tuple(x.shape[1:]), x.dtype) for x in xs]
    check_infos("Scan", "the inputs of body", [*consts, *carry, *slices], body.in_infos)
    out = body.out_infos
    check_infos("Scan", "the carry body gives", out[:n_carry], carry)
    return list(carry) + [TensorInfo((length, *y.shape), y.dtype) for y in out[n_carry:]]


COND = declare_spec(KernelSpec(
    name="Cond", inputs=("operands",), variadic=True, outputs=(), infer=_cond_rule,
    attrs=(AttrSpec("branches", validate=_graphs, doc="the traced branches, one per index"),),
    doc="the outputs of branches[index] on the operands (operands[0]: the int32 index, clamped)",
))

WHILE = declare_spec(KernelSpec(
    name="While", inputs=("operands",), variadic=True, outputs=(), infer=_while_rule,
    attrs=(AttrSpec("cond", validate=_graph, doc="the traced predicate: (consts, carry) -> bool"),
           AttrSpec("body", validate=_graph, doc="the traced body: (consts, carry) -> carry"),
           AttrSpec("n_consts", 0, as_int, "how many of the inputs are loop-invariant constants")),
    doc="the carry after body is applied while cond holds (operands: consts, then the carry)",
))

SCAN = declare_spec(KernelSpec(
    name="Scan", inputs=("operands",), variadic=True, outputs=(), infer=_scan_rule,
    attrs=(AttrSpec("body", validate=_graph, doc="the traced body: (consts, carry, x) -> (carry, y)"),
           AttrSpec("n_consts", 0, as_int, "how many inputs are loop-invariant constants"),
           AttrSpec("n_carry", validate=as_int, doc="how many inputs after the consts are the carry"),
           AttrSpec("length", validate=as_int, doc="the number of steps (the xs' length)"),
           AttrSpec("reverse", False, as_bool, "scan from the last slice to the first")),
    doc="the last carry and the stacked outputs of body over the slices of xs (operands: consts, "
        "carry, xs)",
))
