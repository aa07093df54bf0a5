"""What an ONNX lowering writes through: ``LoweringContext``, one per kernel call of the graph.
It holds the call's ONNX value names, attributes and input/output shapes and dtypes, and
collects the nodes and constants the lowering makes, as plain data (the ``onnx`` package is
only imported when the model is built, so lowerings never import it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensorplug.errors import ExportError
from tensorplug.kernels.kernel_spec import TensorInfo

__all__ = ["LoweringContext", "Node"]


@dataclass(frozen=True)
class Node:
    """One ONNX node: operator type, input and output value names, attributes."""

    op_type: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: Mapping[str, Any]


class _Names:
    """Fresh ONNX value names, unique in one graph."""

    def __init__(self) -> None:
        self.count = 0

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"


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

    def np_dtype(self, i: int = 0, output: bool = False) -> np.dtype[Any]:
        """The numpy dtype of input (or output) `i`."""
        info = (self.output_infos if output else self.input_infos)[i]
        return np.dtype(info.dtype.numpy)

    def unsupported(self, why: str) -> ExportError:
        """The error for a call this lowering cannot express: name `why` and the way out."""
        return ExportError(f"tp.export.onnx: kernel '{self.kernel}' with attributes {dict(self.attrs)} "
                           f"cannot be written as ONNX: {why}. Change the call, or register a lowering "
                           "that handles it (tensorplug.extend.register_onnx_lowering(..., override=True)).")
