"""What an ONNX lowering writes through: ``LoweringContext``, one per kernel call of the graph.
It holds the call's ONNX value names, attributes and input/output shapes and dtypes, and
collects the nodes and constants the lowering makes, as plain data (the ``onnx`` package is
only imported when the model is built, so lowerings never import it).

A control-flow kernel's lowering writes its traced functions (``Graph`` attributes) as ONNX
subgraphs (the ``If``/``Loop`` attributes): ``ctx.nested()`` is a context writing into nodes of
its own, ``lower_graph`` writes a graph's kernel calls there through their lowerings (as the
main graph's are), and ``subgraph`` packs those nodes as a ``Subgraph`` attribute value. A
subgraph reads outer values by name (ONNX's outer scope); its constants are initializers of
the model."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from tensorplug.core.records import Record
from tensorplug.errors import ExportError, TensorplugError
from tensorplug.families.control_flow.graphs import Graph
from tensorplug.kernels.kernel_spec import TensorInfo
from tensorplug.registry.onnx_lowerings import find_onnx_lowering

__all__ = ["LoweringContext", "Node", "Subgraph", "run_lowering", "graphs_in", "all_nodes"]


class Node(Record):
    """One ONNX node: operator type, input and output value names, attributes."""

    __slots__ = ("op_type", "inputs", "outputs", "attributes")
    op_type: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: Mapping[str, Any]

    def __init__(self, op_type: str, inputs: tuple[str, ...], outputs: tuple[str, ...],
                 attributes: Mapping[str, Any]) -> None:
        self._set(op_type=op_type, inputs=inputs, outputs=outputs, attributes=attributes)


class Subgraph(Record):
    """An ONNX subgraph (a GraphProto attribute of ``If``/``Loop``): its formal inputs and its
    outputs (value name, shape and dtype) and its nodes; it may read outer values by name."""

    __slots__ = ("inputs", "outputs", "nodes")
    inputs: tuple[tuple[str, TensorInfo], ...]
    outputs: tuple[tuple[str, TensorInfo], ...]
    nodes: tuple[Node, ...]

    def __init__(self, inputs: tuple[tuple[str, TensorInfo], ...],
                 outputs: tuple[tuple[str, TensorInfo], ...], nodes: tuple[Node, ...]) -> None:
        self._set(inputs=inputs, outputs=outputs, nodes=nodes)


def graphs_in(attrs: Mapping[str, Any]) -> Iterator[Graph]:
    """The traced functions a kernel call's attributes hold (a control-flow kernel's)."""
    for value in attrs.values():
        if isinstance(value, Graph):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (g for g in value if isinstance(g, Graph))


def all_nodes(nodes: Sequence[Node]) -> Iterator[Node]:
    """`nodes` and the nodes of every subgraph they hold, depth first."""
    for n in nodes:
        yield n
        for value in n.attributes.values():
            if isinstance(value, Subgraph):
                yield from all_nodes(value.nodes)


class _Names:
    """ONNX value names, unique in one graph: every name given out is taken, and none is given
    twice (a user's input named like a generated one, "Exp_0", keeps its name; the other moves)."""

    def __init__(self) -> None:
        self.count = 0
        self.taken: set[str] = set()

    def fresh(self, hint: str) -> str:
        """A new name `hint`_N."""
        while True:
            self.count += 1
            name = f"{hint}_{self.count}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def claim(self, name: str) -> str:
        """`name` itself if no value has it yet, else `name` with underscores appended until free."""
        while name in self.taken:
            name = f"{name}_"
        self.taken.add(name)
        return name


class LoweringContext:
    """One kernel call being lowered: ``inputs``/``outputs`` (ONNX value names, in the spec's
    order), ``attrs``, ``input_infos``/``output_infos`` (shapes and dtypes of the example), and
    the verbs ``node``, ``constant``, ``ints`` and ``fresh``. A lowering must compute every name
    of ``outputs``."""

    def __init__(self, kernel: str, inputs: Sequence[str], outputs: Sequence[str], attrs: Mapping[str, Any],
                 input_infos: Sequence[TensorInfo], output_infos: Sequence[TensorInfo],
                 names: _Names, nodes: list[Node], constants: dict[str, np.ndarray], opset: int) -> None:
        self.kernel = kernel
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.attrs = attrs
        self.input_infos = tuple(input_infos)
        self.output_infos = tuple(output_infos)
        self.opset = opset
        self._names = names
        self._nodes = nodes
        self._constants = constants

    @property
    def out(self) -> str:
        """The name of the first (often only) output."""
        return self.outputs[0]

    def node(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str] | str | None = None,
             **attributes: Any) -> str:
        """Add an ONNX node; returns the name of its (first) output, made fresh when not given."""
        if outputs is None:
            outputs = (self._names.fresh(f"{self.kernel}_{op_type}"),)
        elif isinstance(outputs, str):
            outputs = (outputs,)
        self._nodes.append(Node(op_type, tuple(inputs), tuple(outputs), attributes))
        return outputs[0]

    def fresh(self, hint: str) -> str:
        """A new value name (for a node of several outputs, some of which the lowering names)."""
        return self._names.fresh(f"{self.kernel}_{hint}")

    def constant(self, value: Any, dtype: Any = None) -> str:
        """An initializer holding `value` (a numpy array or Python scalar(s), as `dtype`); its name."""
        array = np.asarray(value, dtype=dtype)
        name = self._names.fresh(f"{self.kernel}_const")
        self._constants[name] = array
        return name

    def ints(self, values: Sequence[int] | int) -> str:
        """An int64 initializer of `values` (a list: 1-d; an int: a scalar), e.g. axes or a shape."""
        return self.constant(values, np.int64)

    def nested(self) -> LoweringContext:
        """A context of this call writing into nodes of its own: a subgraph's body (``lower_graph``
        writes into it, ``subgraph`` packs it)."""
        return LoweringContext(self.kernel, self.inputs, self.outputs, self.attrs, self.input_infos,
                               self.output_infos, self._names, [], self._constants, self.opset)

    def lower_graph(self, graph: Graph, names: Sequence[str]) -> list[str]:
        """Write the kernel calls of `graph` (its inputs bound to the value names `names`) through
        their ONNX lowerings into this context's nodes; the names of its outputs."""
        if len(names) != len(graph.inputs):
            raise ExportError(f"tp.export.onnx: kernel '{self.kernel}': a traced function of "
                              f"{len(graph.inputs)} inputs was given {len(names)} value names (a bug of "
                              "its lowering).")
        values: dict[int, str] = dict(zip(graph.inputs, names))
        for v, array in graph.constants.items():
            values[v] = self.constant(array)
        for step in graph.steps:
            rule = find_onnx_lowering(step.kernel)  # (this thread's, overrides included)
            if rule is None:
                raise ExportError(f"tp.export.onnx: no ONNX lowering for kernel '{step.kernel}', called "
                                  f"inside the traced function of '{self.kernel}'. Add one with "
                                  "tensorplug.extend.register_onnx_lowering, or avoid the op there.")
            outs = [self.fresh(step.kernel) for _ in step.outputs]
            values.update(zip(step.outputs, outs))
            ctx = LoweringContext(step.kernel, [values[v] for v in step.inputs], outs, step.attrs,
                                  [graph.infos[v] for v in step.inputs],
                                  [graph.infos[v] for v in step.outputs],
                                  self._names, self._nodes, self._constants, self.opset)
            run_lowering(rule.lower, ctx)
        return [values[v] for v in graph.outputs]

    def subgraph(self, inputs: Sequence[tuple[str, TensorInfo]],
                 outputs: Sequence[tuple[str, TensorInfo]]) -> Subgraph:
        """This (nested) context's nodes as a subgraph of formal `inputs` and `outputs` (value
        names with their shapes and dtypes; each output is written to a name of its own)."""
        nodes = list(self._nodes)
        named = []
        for value, info in outputs:
            name = self._names.fresh(f"{self.kernel}_out")
            nodes.append(Node("Identity", (value,), (name,), {}))
            named.append((name, info))
        return Subgraph(tuple(inputs), tuple(named), tuple(nodes))

    def np_dtype(self, i: int = 0, output: bool = False) -> np.dtype[Any]:
        """The numpy dtype of input (or output) `i`."""
        info = (self.output_infos if output else self.input_infos)[i]
        return np.dtype(info.dtype.numpy)

    def unsupported(self, why: str) -> ExportError:
        """The error for a call this lowering cannot express: name `why` and the way out."""
        return ExportError(f"tp.export.onnx: kernel '{self.kernel}' with attributes {dict(self.attrs)} "
                           f"cannot be written as ONNX: {why}. Change the call, or register a lowering "
                           "that handles it (tensorplug.extend.register_onnx_lowering(..., override=True)).")


def run_lowering(lower: Callable[[LoweringContext], None], ctx: LoweringContext) -> None:
    """Call `lower` on `ctx`; an error other than a tensorplug one (a lowering's bug) becomes an
    ExportError naming the kernel, its inputs and attributes."""
    try:
        lower(ctx)
    except TensorplugError:
        raise
    except Exception as exc:  # (a lowering's bug, named)
        raise ExportError(
            f"tp.export.onnx: the ONNX lowering of kernel '{ctx.kernel}' raised {type(exc).__name__}: {exc} "
            f"(inputs {[str(i) for i in ctx.input_infos]}, attributes {dict(ctx.attrs)}). Fix the "
            "lowering, or override it with register_onnx_lowering(..., override=True).") from exc
