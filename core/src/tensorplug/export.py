"""Export a function or model out of Python: ``tp.export.onnx`` writes an ONNX model (kernels
through their ONNX lowerings, which plugins extend with the ``tensorplug_onnx_lowerings`` hook),
``tp.export.stablehlo`` serializes it with ``jax.export`` through the jax backend."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.exporting.graph import trace_graph
from tensorplug.exporting.onnx_model import DEFAULT_OPSET, DynamicAxes, build_model, import_onnx, write_model
from tensorplug.exporting.stablehlo import stablehlo

__all__ = ["onnx", "onnx_model", "stablehlo", "DEFAULT_OPSET"]


def onnx_model(fn: Callable[..., Any], *example_args: Any, dynamic_axes: DynamicAxes | None = None,
               opset: int | None = None, input_names: Sequence[str] | None = None,
               output_names: Sequence[str] | None = None) -> Any:
    """`fn` (a function of tensors, or a ``tp.nn.Module``: its forward pass in eval mode) traced on
    `example_args` and built as an ``onnx.ModelProto`` (see ``onnx`` for the arguments)."""
    import_onnx()  # (before tracing: a missing package is the first thing said)
    graph = trace_graph("tp.export.onnx", fn, example_args, input_names, output_names)
    return build_model(graph, DEFAULT_OPSET if opset is None else opset, dynamic_axes)


def onnx(fn: Callable[..., Any], *example_args: Any, path: str | os.PathLike[str],
         dynamic_axes: DynamicAxes | None = None, opset: int | None = None,
         input_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None) -> Any:
    """Trace `fn` on `example_args` and write it to `path` as an ONNX model; returns the model.
    Variables read become initializers named by their paths in a Module (else their names);
    inputs are named ``input``/``input_0``... and outputs ``output``/``output_0``... unless
    `input_names`/`output_names` say; `dynamic_axes` maps such a name to the axes left free
    (``{"input": {0: "batch"}}`` or ``{"input": [0]}``). Nothing is written when it fails."""
    model = onnx_model(fn, *example_args, dynamic_axes=dynamic_axes, opset=opset, input_names=input_names,
                       output_names=output_names)
    write_model(model, path)
    return model
