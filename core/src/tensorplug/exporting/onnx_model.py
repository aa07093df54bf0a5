"""A kernel graph written as an ONNX model: every kernel call through its lowering (the ONNX
lowering registry), the Variables read as initializers named by their paths, the arguments and
results as the graph's inputs and outputs (with named dynamic axes where asked). Everything is
checked before a byte is written (the lowerings, the dtypes), and the file is written to a
temporary name and renamed, so a failed export leaves no partial file."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from tensorplug.core.runtime import current
from tensorplug.errors import ExportError, MissingDependencyError
from tensorplug.exporting.context import (
    LoweringContext,
    Node,
    Subgraph,
    _Names,
    all_nodes,
    graphs_in,
    run_lowering,
)
from tensorplug.exporting.graph import KernelGraph
from tensorplug.families.control_flow.graphs import Graph
from tensorplug.kernels.kernel_spec import TensorInfo
from tensorplug.registry.onnx_lowerings import OnnxLowering, find_onnx_lowering

__all__ = ["DEFAULT_OPSET", "DynamicAxes", "build_model", "write_model", "import_onnx", "missing_lowerings"]

#: the ONNX standard opset the lowerings are written for (and the default of tp.export.onnx)
DEFAULT_OPSET = 21

#: per input or output name, its dynamic axes: a list of axes, or axis -> dimension name
DynamicAxes = Mapping[str, Sequence[int] | Mapping[int, str]]

WHO = "tp.export.onnx"


def import_onnx() -> Any:
    """The ``onnx`` package, or MissingDependencyError naming the extra that installs it."""
    try:
        import onnx  # (an optional dependency: the extra tensorplug-core[onnx])
    except ImportError as exc:
        raise MissingDependencyError(
            f"{WHO} needs the 'onnx' package, which is not installed: pip install 'tensorplug-core[onnx]' "
            "(or pip install onnx).") from exc
    return onnx


def _calls(graph: KernelGraph | Graph) -> Iterator[tuple[str, list[TensorInfo]]]:
    """Every kernel call of `graph` and of the traced functions its calls hold (a branch, a
    loop body), with the shapes and dtypes of its inputs and outputs, in order."""
    for step in graph.steps:
        yield step.kernel, [graph.infos[i] for i in (*step.inputs, *step.outputs)]
        for inner in graphs_in(step.attrs):
            yield from _calls(inner)


def missing_lowerings(graph: KernelGraph) -> list[str]:
    """The kernels of `graph` (and of the functions its control flow traced) without an ONNX
    lowering, in order of first use."""
    missing: list[str] = []
    for kernel, _ in _calls(graph):
        if kernel not in missing and find_onnx_lowering(kernel) is None:
            missing.append(kernel)
    return missing


def _check_lowerings(graph: KernelGraph) -> dict[str, OnnxLowering]:
    missing = missing_lowerings(graph)
    if missing:
        specs = current().specs
        owners = []
        for kernel in missing:
            reg = specs.registration(kernel)
            owners.append(f"'{kernel}' (declared by {'the core' if reg is None else repr(reg.source)})")
        raise ExportError(
            f"{WHO}: no ONNX lowering for {len(missing)} kernel(s) the function calls: {', '.join(owners)}. "
            "Add one with tensorplug.extend.register_onnx_lowering(OnnxLowering(kernel_name, lower)) or, "
            "in a plugin, its tensorplug_onnx_lowerings hook (docs/guide/exporting-models.md: 'Adding a "
            "lowering'); or avoid the op in the exported function.")
    return {kernel: find_onnx_lowering(kernel) for kernel, _ in _calls(graph)}  # type: ignore[misc]


def _check_dtypes(graph: KernelGraph, names: Mapping[int, str], rules: Mapping[str, OnnxLowering]) -> None:
    """Complex values only inside the graph, and only through lowerings that hold them as pairs."""
    for i, _ in (*graph.inputs, *graph.outputs):
        info = graph.infos[i]
        if info.dtype.is_complex:
            raise ExportError(
                f"{WHO}: value '{names[i]}' has dtype {info.dtype.name}, which ONNX's standard operators do "
                "not compute with (no operator takes complex tensors). Export the real and imaginary parts "
                "as separate float tensors (tp.real, tp.imag); inside the function, complex values are "
                "written as (real, imaginary) pairs.")
    refused: list[str] = []
    for kernel, infos in _calls(graph):
        if rules[kernel].complex_pairs:
            continue
        kinds = sorted({i.dtype.name for i in infos if i.dtype.is_complex})
        entry = f"'{kernel}' ({', '.join(kinds)})"
        if kinds and entry not in refused:
            refused.append(entry)
    if refused:
        pairs = sorted(k for k, rule in current().onnx_lowerings.active.items() if rule.complex_pairs)
        raise ExportError(
            f"{WHO}: the function computes on complex values with kernel(s) {', '.join(refused)}, whose ONNX "
            f"lowerings do not handle complex values (ONNX has no complex dtype: the graph holds them as "
            f"(real, imaginary) pairs, which these lowerings handle: {pairs}). Compute on the real and "
            "imaginary parts (tp.real, tp.imag), or register a lowering with OnnxLowering(..., "
            "complex_pairs=True).")


def _stored(array: np.ndarray) -> np.ndarray:
    """An array as the graph holds it: complex as (real, imaginary) pairs on a trailing axis."""
    array = np.asarray(array)
    if np.iscomplexobj(array):
        return np.stack([array.real, array.imag], axis=-1)
    return array


def _value_names(graph: KernelGraph, allocator: _Names) -> dict[int, str]:
    """The ONNX name of each value of `graph`: the inputs' and outputs' names as the user chose
    them, the others generated, all distinct (taken from `allocator`)."""
    allocator.taken.update(name for _, name in graph.inputs + graph.outputs)
    names: dict[int, str] = {i: name for i, name in graph.inputs}
    for i, (name, _) in graph.variables.items():
        names[i] = allocator.claim(name)
    for i in graph.constants:
        names[i] = allocator.claim(f"const_{i}")
    for k, step in enumerate(graph.steps):
        for j, i in enumerate(step.outputs):
            if i not in names:  # (a kernel that returned its input array as it is: no new value)
                names[i] = allocator.claim(f"{step.kernel}_{k}" + (f"_{j}" if len(step.outputs) > 1 else ""))
    return names


def _dims(shape: Sequence[int], name: str, dynamic_axes: DynamicAxes | None) -> list[int | str]:
    dims: list[int | str] = list(shape)
    axes = (dynamic_axes or {}).get(name)
    if axes is None:
        return dims
    pairs = axes.items() if isinstance(axes, Mapping) else ((a, f"{name}_dim{a}") for a in axes)
    for axis, dim_name in pairs:
        if not isinstance(axis, int) or not -len(dims) <= axis < len(dims):
            raise ExportError(f"{WHO}: dynamic_axes['{name}'] names axis {axis!r}, but '{name}' has "
                              f"{len(dims)} axes (shape {tuple(shape)}).")
        dims[axis] = str(dim_name)
    return dims


def build_model(graph: KernelGraph, opset: int = DEFAULT_OPSET,
                dynamic_axes: DynamicAxes | None = None) -> Any:
    """The ONNX ModelProto of `graph` (checked with onnx.checker); ExportError or
    MissingDependencyError before anything is built when it cannot be."""
    onnx = import_onnx()
    from onnx import helper, numpy_helper  # (parts of the optional dependency above)

    newest = int(onnx.defs.onnx_opset_version())
    if not isinstance(opset, int) or not DEFAULT_OPSET <= opset <= newest:
        raise ExportError(f"{WHO}: opset {opset!r} is not one the lowerings can write: they use the "
                          f"operators of opset {DEFAULT_OPSET}, and the installed onnx {onnx.__version__} "
                          f"knows opsets up to {newest}; pass an opset from {DEFAULT_OPSET} to {newest} "
                          "(or None).")
    rules = _check_lowerings(graph)
    newer = sorted({f"'{k}' (opset {rule.min_opset})" for k, rule in rules.items() if rule.min_opset > opset})
    if newer:
        least = max(rule.min_opset for rule in rules.values())
        raise ExportError(f"{WHO}: the ONNX lowerings of kernel(s) {', '.join(newer)} write operators newer "
                          f"than opset {opset}; export with opset={least} or newer (onnxruntime must know it "
                          "too), or avoid these ops.")
    fresh = _Names()
    names = _value_names(graph, fresh)
    _check_dtypes(graph, names, rules)
    known = {name for _, name in graph.inputs} | {name for _, name in graph.outputs}
    for name in dynamic_axes or {}:
        if name not in known:
            raise ExportError(f"{WHO}: dynamic_axes names '{name}', which is not an input or output; the "
                              f"names are {sorted(known)} (input_names=, output_names= choose them).")
    nodes: list[Node] = []
    defined: set[str] = {names[i] for i, _ in graph.inputs}  # (values computed so far)
    extra: dict[str, np.ndarray] = {}
    for step in graph.steps:
        defined.update(names[i] for i in step.inputs)
        outs = [fresh.fresh(f"{step.kernel}_unused") if names[i] in defined else names[i]
                for i in step.outputs]
        defined.update(outs)
        ctx = LoweringContext(step.kernel, [names[i] for i in step.inputs], outs,
                              step.attrs, [graph.infos[i] for i in step.inputs],
                              [graph.infos[i] for i in step.outputs], fresh, nodes, extra, opset)
        run_lowering(rules[step.kernel].lower, ctx)
    for i, name in graph.outputs:
        nodes.append(Node("Identity", (names[i],), (name,), {}))

    def elem(i: int) -> int:
        return int(helper.np_dtype_to_tensor_dtype(np.dtype(graph.infos[i].dtype.numpy)))

    def value_info(name: str, info: TensorInfo) -> Any:
        """A subgraph's input or output: its dtype and rank (its sizes left free, so that an axis
        the main graph's inputs leave dynamic may vary inside the subgraph too)."""
        dtype, rank = np.dtype(info.dtype.numpy), len(info.shape)
        if info.dtype.is_complex:  # (held as (real, imaginary) pairs)
            dtype, rank = np.zeros(0, dtype).real.dtype, rank + 1
        return helper.make_tensor_value_info(name, int(helper.np_dtype_to_tensor_dtype(dtype)), [None] * rank)

    def onnx_node(n: Node) -> Any:
        attributes = {k: (helper.make_graph([onnx_node(m) for m in v.nodes], f"{n.op_type}_{n.outputs[0]}",
                                            [value_info(*i) for i in v.inputs],
                                            [value_info(*o) for o in v.outputs])
                          if isinstance(v, Subgraph) else v) for k, v in n.attributes.items()}
        return helper.make_node(n.op_type, list(n.inputs), list(n.outputs), **attributes)

    read = {name for n in all_nodes(nodes) for name in n.inputs}  # (an input a lowering ignores is left out)
    arrays = [(names[i], a) for i, (_, a) in graph.variables.items()]
    arrays += [(names[i], a) for i, a in graph.constants.items()] + list(extra.items())
    initializers = [numpy_helper.from_array(_stored(a), name=name) for name, a in arrays if name in read]
    inputs = [helper.make_tensor_value_info(name, elem(i), _dims(graph.infos[i].shape, name, dynamic_axes))
              for i, name in graph.inputs]
    outputs = [helper.make_tensor_value_info(name, elem(i), _dims(graph.infos[i].shape, name, dynamic_axes))
               for i, name in graph.outputs]
    onnx_nodes = [onnx_node(n) for n in nodes]
    model_graph = helper.make_graph(onnx_nodes, "tensorplug", inputs, outputs, initializers)
    model = helper.make_model(model_graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tensorplug")
    model.ir_version = min(model.ir_version, 10)  # (what onnxruntime releases of opset 21 read)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as exc:  # (onnx's checker errors: a lowering wrote an invalid graph)
        kernels = sorted({kernel for kernel, _ in _calls(graph)})
        raise ExportError(f"{WHO}: the ONNX model the lowerings of {kernels} wrote is not valid: {exc}. "
                          "A lowering is wrong (or takes inputs of a dtype its ONNX operators refuse): fix "
                          "it, or override it with register_onnx_lowering(..., override=True).") from exc
    return model


_numbers = itertools.count()


def _temporary(folder: str, name: str) -> tuple[int, str]:
    """A new file beside the target, opened for writing (a name no other writer has taken)."""
    while True:
        tmp = os.path.join(folder, f".{name}.tp-export-{os.getpid()}-{next(_numbers)}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def write_model(model: Any, path: str | os.PathLike[str]) -> None:
    """Write `model` to `path` whole or not at all (a temporary file in its folder, renamed)."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise ExportError(f"{WHO}: path must be a str or a path-like object, got "
                          f"{type(path).__name__}.") from None
    folder, name = os.path.split(os.path.abspath(path))
    try:
        fd, tmp = _temporary(folder, name)
    except OSError as exc:
        raise ExportError(f"{WHO}: cannot write '{path}': {exc.strerror or exc} (the folder must exist "
                          "and be writable).") from exc
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(model.SerializeToString())
        os.replace(tmp, path)
    except BaseException as exc:
        os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ExportError(f"{WHO}: cannot write '{path}': {exc.strerror or exc}.") from exc
        raise
