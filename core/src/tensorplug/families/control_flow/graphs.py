"""Graphs: a function of tensors traced into its kernel calls (what JAX's jaxprs are to its
control flow), the attribute through which the control-flow kernels carry their branches and
bodies. A graph is plain data over numbered values, independent of any backend: its inputs, its
constants (host arrays), its steps (kernel name, attributes, the values each reads and
writes), its outputs, and the shape and dtype of every value.

A graph runs two ways:
- ``run_graph(graph, backend, arrays)``, at the kernel level: the backend's own kernels on its
  native arrays, as one generated function per backend (tp.jit's planner: its first run is
  traced with the ops, the dispatcher's direct calls recorded, and the plan replayed after,
  traced again when the kernel registry changes). What the generic control-flow kernels call,
  and a backend's native ones (jax's ``lax.cond`` branches, with ``cache=False``: a plan of the
  kernel functions, made for the one trace);
- ``call_graph(graph, tensors)``, at the op level: each step dispatched like an op, so tapes,
  forward mode, vmap and tp.jit see it. What the gradient, JVP and batching rules of the
  control-flow kernels call (they are written with ops, as every rule is).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.core.context import backend_var, recorders_var
from tensorplug.core.records import Record
from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.dispatcher import dispatcher_of, wrap
from tensorplug.kernels.kernel_spec import TensorInfo, describe
from tensorplug.kernels.lookup import missing_kernel_error
from tensorplug.registry._slots import CHANGES
from tensorplug.registry.specs import get_kernel_spec
from tensorplug.transforms.jit.planner import Plan, PlannedFunction, Step

__all__ = ["Graph", "GraphStep", "run_graph", "call_graph", "kernel_function_of"]


class GraphStep(NamedTuple):
    """One kernel call of a graph: its kernel, attributes, and the values it reads and writes."""

    kernel: str
    attrs: Mapping[str, Any]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


class Graph(Record):
    """A traced function: `inputs` (value numbers, in argument order), `constants` (value
    number -> host array), `steps` in order, `outputs` (value numbers) and `infos` (value number
    -> shape and dtype, for every value). Compared by identity; plans per backend are cached on
    it (``run_graph``)."""

    __slots__ = ("inputs", "constants", "steps", "outputs", "infos", "plans", "_fingerprint")
    inputs: tuple[int, ...]
    constants: Mapping[int, np.ndarray]
    steps: tuple[GraphStep, ...]
    outputs: tuple[int, ...]
    infos: Mapping[int, TensorInfo]
    plans: dict[int, PlannedFunction]
    _fingerprint: list[Hashable]

    def __init__(self, inputs: tuple[int, ...], constants: Mapping[int, np.ndarray],
                 steps: tuple[GraphStep, ...], outputs: tuple[int, ...],
                 infos: Mapping[int, TensorInfo]) -> None:
        self._set(inputs=inputs, constants=constants, steps=steps, outputs=outputs, infos=infos, plans={},
                  _fingerprint=[])

    __eq__ = object.__eq__  # (compared by identity)
    __hash__ = object.__hash__

    @property
    def in_infos(self) -> tuple[TensorInfo, ...]:
        """The shape and dtype of each input, in order."""
        return tuple(self.infos[i] for i in self.inputs)

    @property
    def out_infos(self) -> tuple[TensorInfo, ...]:
        """The shape and dtype of each output, in order."""
        return tuple(self.infos[i] for i in self.outputs)

    def fingerprint(self) -> Hashable:
        """A hashable value equal for graphs that compute the same function (the same steps,
        attributes, constants and shapes), e.g. the same function traced again; None where
        an attribute has no such value. A backend may key what it compiles by it."""
        if not self._fingerprint:
            try:
                steps = tuple((s.kernel, _frozen(s.attrs), s.inputs, s.outputs) for s in self.steps)
                constants = tuple((k, _frozen(a)) for k, a in sorted(self.constants.items()))
                found: Hashable = (self.inputs, self.outputs, steps, constants,
                                   tuple(sorted(self.infos.items())))
                hash(found)
            except TypeError:  # (an attribute value that is not plain data)
                found = None
            self._fingerprint.append(found)
        return self._fingerprint[0]

    def __repr__(self) -> str:
        ins = ", ".join(describe(i) for i in self.in_infos)
        outs = ", ".join(describe(i) for i in self.out_infos)
        kernels = ", ".join(s.kernel for s in self.steps[:6]) + (", ..." if len(self.steps) > 6 else "")
        return f"<Graph ({ins}) -> ({outs}): {len(self.steps)} kernel calls [{kernels}]>"


def _frozen(value: Any) -> Hashable:
    """`value` (an attribute or a constant) as a hashable value; TypeError where it has none."""
    if isinstance(value, Graph):
        return ("graph", value.fingerprint())
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, Mapping):
        return ("map", tuple((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    hash(value)
    return (type(value).__name__, value)


def kernel_function_of(kernel_name: str, backend: Backend) -> Any:
    """The function `backend` runs for `kernel_name` (its registered kernel, or one it derives),
    as the dispatcher would call it: ``func(inputs, attrs, backend)``."""
    config = current().kernels.active.get((kernel_name, backend.name)) or backend.derived_kernel(kernel_name)
    if config is None:
        raise missing_kernel_error(kernel_name, backend.name)
    return backend.kernel_function(config)


def _plan(graph: Graph, backend: Backend) -> Plan:
    """`graph` as a plan of `backend`'s kernel functions (its value numbers renumbered as a plan
    wants them: the inputs first)."""
    numbers = {v: i for i, v in enumerate(graph.inputs)}

    def number(v: int) -> int:
        found = numbers.get(v)
        if found is None:
            found = numbers[v] = len(numbers)
        return found

    constants = {number(v): backend.from_numpy(a) for v, a in graph.constants.items()}
    steps = []
    for s in graph.steps:
        single = len(get_kernel_spec(s.kernel).outputs) == 1
        steps.append(Step(s.kernel, kernel_function_of(s.kernel, backend), False, dict(s.attrs),
                          tuple(number(v) for v in s.inputs), tuple(number(v) for v in s.outputs), single))
    outputs = [number(v) for v in graph.outputs]
    return Plan(backend, steps, len(graph.inputs), 0, constants, outputs, [])


def run_graph(graph: Graph, backend: Backend, arrays: Sequence[Any], cache: bool = True) -> list[Any]:
    """The outputs of `graph` on `backend`'s native `arrays` (one per input), computed with
    the backend's kernels: a plan kept on the graph for the next run, or, with ``cache=False``,
    one made for this run alone (for a backend that runs it while tracing, as jax inside
    ``lax.cond``, whose constants made during one trace must not serve another)."""
    if not cache:
        outputs, _ = _plan(graph, backend)(list(arrays), [])
        return outputs
    planned = graph.plans.get(id(backend))
    if planned is None or planned.backend is not backend:
        planned = graph.plans[id(backend)] = PlannedFunction(backend, _traced_with_ops(graph, backend))
    plan = planned.plan
    if plan is not None and planned.version == CHANGES[0]:
        return plan(list(arrays), [])[0]
    # (traced: the graph's ops run on this backend, seen by no recorder outside)
    backend_token, recorders_token = backend_var.set(backend), recorders_var.set(())
    try:
        return planned(list(arrays), [])[0]
    finally:
        recorders_var.reset(recorders_token)
        backend_var.reset(backend_token)


def _traced_with_ops(graph: Graph, backend: Backend) -> Any:
    """The pure function the planner traces for `graph` on `backend`: its ops on native arrays."""
    def pure(args: list[Any], state: list[Any]) -> tuple[list[Any], list[Any]]:
        outputs = call_graph(graph, [wrap(a, backend) for a in args])
        return [t._data for t in outputs], []
    return pure


def call_graph(graph: Graph, inputs: Sequence[Tensor]) -> list[Tensor]:
    """The outputs of `graph` on `inputs` (Tensors, one per input), each step run as an op on
    the active backend (recorded by tapes, forward mode, vmap, tp.jit)."""
    values: dict[int, Tensor] = dict(zip(graph.inputs, inputs))
    for v, array in graph.constants.items():
        values[v] = asarray(array)
    for s in graph.steps:
        out = dispatcher_of(s.kernel)([values[v] for v in s.inputs], s.attrs)
        values.update(zip(s.outputs, (out,) if isinstance(out, Tensor) else out))
    return [values[v] for v in graph.outputs]
