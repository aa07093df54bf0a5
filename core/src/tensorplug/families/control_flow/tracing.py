"""Tracing a function of tensors into a ``Graph``, on shapes and dtypes alone.

While a branch or a loop body is traced, the active backend is a ``GraphTracer``: its native
arrays are ``Symbol``s (a value number with a shape and a dtype), and its kernel for every
kernel name asks the kernel's spec for the outputs' shapes and dtypes and records the call;
nothing is computed. No recorder sees the calls (an outer tape records the control-flow
kernel itself, not its body).

A tensor from outside the function (a weight it closes over, an outer loop's value) is met when
a kernel takes it in (``from_tensor``): it becomes an input of the graph, and the primitive
passes it to its kernel as an explicit input (closure conversion, as JAX does), so that tapes,
vmap and tp.jit see it. ``Captures`` gathers these tensors over the traces of one primitive
call (both branches of a cond share them). Reading a traced value (``float(t)``, Python control
flow on it) is a TracedValueError naming the primitive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.backends.lifecycle import active_backend
from tensorplug.core.context import backend_var, recorders_var
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, from_numpy_dtype
from tensorplug.errors import TracedValueError
from tensorplug.families._common.convert import asarray
from tensorplug.families.control_flow.graphs import Graph, GraphStep
from tensorplug.kernels.dispatcher import wrap
from tensorplug.kernels.kernel_spec import TensorInfo, describe
from tensorplug.registry.kernel_config import KernelConfig
from tensorplug.registry.specs import get_kernel_spec
from tensorplug.tree_util import tree_flatten

__all__ = ["Symbol", "GraphTracer", "Captures", "Traced", "trace", "graph_of"]

#: the tracer's backend name (in messages, and in the kernel configs it derives)
TRACER = "tensorplug-graph"


class Symbol:
    """A native array of the graph tracer: value `number` of the graph being traced, with its
    shape and dtype (and its values, for a constant)."""

    __slots__ = ("number", "shape", "dtype", "value")

    def __init__(self, number: int, shape: tuple[int, ...], dtype: DType,
                 value: np.ndarray | None = None) -> None:
        self.number = number
        self.shape = shape
        self.dtype = dtype
        self.value = value

    def __repr__(self) -> str:
        return f"Symbol({self.number}: {describe(TensorInfo(self.shape, self.dtype))})"


class Captures:
    """The outside tensors the traces of one primitive call took in, in the order met (each
    once, by identity)."""

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self._position: dict[int, int] = {}

    def position(self, t: Tensor) -> int:
        found = self._position.get(id(t))
        if found is None:
            found = self._position[id(t)] = len(self.tensors)
            self.tensors.append(t)
        return found


def _kernel(kernel_name: str) -> Any:
    def run(arrays: tuple[Symbol, ...], attrs: dict[str, Any], backend: GraphTracer) -> Any:
        return backend.record(kernel_name, arrays, attrs)
    run.__name__ = f"traced_{kernel_name}"
    return run


_configs: dict[str, KernelConfig] = {}  # the tracer's kernels, by kernel name


class GraphTracer(Backend):
    """The backend active while one function is traced for `who` (``'tp.cond'``, ...): it
    records kernel calls on Symbols; `outer` is the backend active at the call (its dtypes and
    limits apply); outside tensors go to `captures`."""

    name = TRACER
    direct_kernels = False
    transform = True

    def __init__(self, outer: Backend, who: str, captures: Captures) -> None:
        self.outer = outer
        self.who = who
        self.captures = captures
        self.captured: dict[int, int] = {}  # position in captures -> value number
        self.infos: dict[int, TensorInfo] = {}
        self.constants: dict[int, np.ndarray] = {}
        self.steps: list[GraphStep] = []
        self.dtypes = outer.dtypes
        self.max_elements = outer.max_elements
        self.max_ndim = outer.max_ndim

    def symbol(self, info: TensorInfo, value: np.ndarray | None = None) -> Symbol:
        number = len(self.infos)
        self.infos[number] = info
        if value is not None:
            self.constants[number] = value
        return Symbol(number, info.shape, info.dtype, value)

    # -- arrays ----------------------------------------------------------------------------
    def from_numpy(self, array: np.ndarray) -> Symbol:
        """Data made inside the function (a creation op, a Python number): a constant."""
        value = np.array(array, copy=True)
        return self.symbol(TensorInfo(value.shape, from_numpy_dtype(value.dtype)), value)

    def from_tensor(self, tensor: Tensor) -> Symbol:
        """A tensor from outside the function: an input of the graph, captured."""
        position = self.captures.position(tensor)
        number = self.captured.get(position)
        if number is None:
            symbol = self.symbol(TensorInfo(tuple(tensor.shape), tensor._dtype))
            self.captured[position] = symbol.number
            return symbol
        info = self.infos[number]
        return Symbol(number, info.shape, info.dtype)

    def to_numpy(self, native: Symbol) -> np.ndarray:
        if native.value is not None:
            return native.value
        raise TracedValueError(
            f"{self.who}: the function reads the value of a tensor (shape {native.shape}, dtype "
            f"{native.dtype.name}) computed from its arguments, which are not known while it is "
            f"traced ({self.who} traces its functions once, on shapes and dtypes, as JAX does). Use "
            "ops instead of Python control flow on tensor values (tp.where, tp.cond, "
            "tp.while_loop), and no float(t), int(t) or t.numpy() inside.")

    def dtype_of(self, native: Symbol) -> DType:
        return native.dtype

    def shape_of(self, native: Symbol) -> tuple[int, ...]:
        return native.shape

    def device_of(self, native: Symbol) -> str:
        return self.outer.default_device()

    def devices(self) -> list[str]:
        return self.outer.devices()

    def default_device(self) -> str:
        return self.outer.default_device()

    # -- kernels ---------------------------------------------------------------------------
    def derived_kernel(self, kernel_name: str) -> KernelConfig:
        found = _configs.get(kernel_name)
        if found is None:
            found = _configs[kernel_name] = KernelConfig(kernel_name, TRACER, _kernel(kernel_name))
        return found

    def record(self, kernel_name: str, arrays: tuple[Symbol, ...], attrs: dict[str, Any]) -> Any:
        """A kernel call: its outputs' shapes and dtypes from its spec, as new Symbols."""
        spec = get_kernel_spec(kernel_name)
        infos = spec.check([TensorInfo(a.shape, a.dtype) for a in arrays], attrs)
        for info in infos:
            if any(d < 0 for d in info.shape):
                raise TracedValueError(
                    f"{self.who}: kernel '{kernel_name}' gives an output whose length depends on the "
                    "values of its inputs; a traced function has fixed shapes. Use a fixed-size "
                    "formulation (tp.where with a mask, or the op's size argument where it has one).")
        outputs = [self.symbol(info) for info in infos]
        self.steps.append(GraphStep(kernel_name, dict(attrs), tuple(a.number for a in arrays),
                                    tuple(o.number for o in outputs)))
        return outputs[0] if len(spec.outputs) == 1 else tuple(outputs)


class Traced:
    """One function traced: the tracer that recorded it, its argument and result value numbers,
    and its result's tree structure."""

    def __init__(self, tracer: GraphTracer, arguments: list[int], results: list[int], tree: Any) -> None:
        self.tracer = tracer
        self.arguments = arguments
        self.results = results
        self.tree = tree

    @property
    def out_infos(self) -> list[TensorInfo]:
        return [self.tracer.infos[v] for v in self.results]


def trace(fn: Callable[..., Any], infos: Sequence[TensorInfo], who: str, captures: Captures) -> Traced:
    """Trace ``fn(*tensors)``, given one tensor per info, into the kernel calls it makes; its
    result is a tree of tensors (or numbers, taken as constants)."""
    outer = backend_var.get() or active_backend()
    tracer = GraphTracer(outer, who, captures)
    symbols = [tracer.symbol(TensorInfo(tuple(i.shape), i.dtype)) for i in infos]
    arguments = [wrap(s, tracer, s.dtype) for s in symbols]
    backend_token = backend_var.set(tracer)
    recorders_token = recorders_var.set(())
    try:
        out = fn(*arguments)
        leaves, tree = tree_flatten(out)
        results = [_result(tracer, leaf) for leaf in leaves]
    finally:
        recorders_var.reset(recorders_token)
        backend_var.reset(backend_token)
    return Traced(tracer, [s.number for s in symbols], results, tree)


def _result(tracer: GraphTracer, leaf: Any) -> int:
    """The value number of a result leaf (a tensor of the trace, an outside tensor, a number)."""
    t = asarray(leaf)  # (an outside tensor is taken in; a number made a constant)
    return int(t._data.number)


def graph_of(traced: Traced, captures: Captures) -> Graph:
    """The graph of `traced`, whose inputs are its arguments then every tensor of `captures`
    (those this function did not take in are inputs it does not read)."""
    tracer = traced.tracer
    infos = dict(tracer.infos)
    captured = []
    for position, t in enumerate(captures.tensors):
        number = tracer.captured.get(position)
        if number is None:  # (another function of the call took it in)
            number = len(infos)
            infos[number] = TensorInfo(tuple(t.shape), t._dtype)
        captured.append(number)
    return Graph(tuple(traced.arguments) + tuple(captured), dict(tracer.constants), tuple(tracer.steps),
                 tuple(traced.results), infos)
