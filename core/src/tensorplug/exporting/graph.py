"""A function traced into its kernel graph on the numpy backend, with the planner of ``tp.jit``
(``transforms/jit/planner.py``): the kernel calls the outputs need, over numbered values (the
function's tensor arguments, the Variables it reads, constants, the kernels' outputs), with the
shape and dtype of each from the kernels' specs. Every live Variable is an input of the trace
(so that what is computed from weights stays a kernel call, not a folded constant); those the
function does not read drop out (those living on another backend lend the trace a copy)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend, backend_scope
from tensorplug.core import validate as valid
from tensorplug.core.context import count_traces
from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable, live_variables
from tensorplug.errors import ExportError, TracedValueError
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.dispatcher import wrap
from tensorplug.kernels.kernel_spec import TensorInfo
from tensorplug.models.module import Module
from tensorplug.transforms.jit.planner import Step, trace

__all__ = ["KernelGraph", "trace_graph", "TRACE_BACKEND"]

#: the backend export traces on (its planner records the kernel calls)
TRACE_BACKEND = "numpy"



@dataclass(frozen=True)
class KernelGraph:
    """The kernel calls of one traced function: `inputs` (value indices of the arguments, with
    their names), `variables` (value index -> name, array) that the calls read, `constants`,
    `steps` (in order), `outputs` (value indices, with names) and every value's `infos`."""

    inputs: tuple[tuple[int, str], ...]
    variables: Mapping[int, tuple[str, np.ndarray]]
    constants: Mapping[int, np.ndarray]
    steps: tuple[Step, ...]
    outputs: tuple[tuple[int, str], ...]
    infos: Mapping[int, TensorInfo]


def trace_graph(who: str, fn: Callable[..., Any], example_args: Sequence[Any],
                input_names: Sequence[str] | None = None,
                output_names: Sequence[str] | None = None) -> KernelGraph:
    """Trace `fn` (a function of tensors, or a Module: its forward pass in eval mode) on the
    example arguments into its kernel graph; `who` names the exporter in errors."""
    fn = valid.function(fn, who)
    names = _names(who, "input", len(example_args), input_names, "one per example argument")
    with backend_scope(TRACE_BACKEND) as backend:
        natives = [_native(who, a, n) for a, n in zip(example_args, names)]
        if isinstance(fn, Module):
            return _trace_module(who, fn, backend, natives, names, output_names)
        return _trace(who, fn, backend, natives, names, output_names, {})


def _trace_module(who: str, model: Module, backend: Backend, natives: list[Any], names: list[str],
                  output_names: Sequence[str] | None) -> KernelGraph:
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        model(*[wrap(x, backend) for x in natives])  # (builds a model not built yet: its Variables)
        paths = {id(v): path for path, v in model.named_variables()}
        return _trace(who, model, backend, natives, names, output_names, paths)
    finally:
        for m, training in modes:
            m.training = training


def _trace(who: str, fn: Callable[..., Any], backend: Backend, natives: list[Any], names: list[str],
           output_names: Sequence[str] | None, paths: Mapping[int, str]) -> KernelGraph:
    variables = live_variables()
    with _moved(variables, backend):
        distinct: dict[int, Variable] = {}  # (one value index per array: Variables sharing one are one)
        for v in variables:
            distinct.setdefault(id(v._value), v)
        return _traced(who, fn, backend, natives, names, output_names, paths, list(distinct.values()))


@contextlib.contextmanager
def _moved(variables: list[Variable], backend: Backend) -> Iterator[None]:
    """The Variables living on another backend hold a copy on `backend` inside the block (the
    trace runs on one backend); each gets its own value back after it."""
    away = [(v, v._value, v._backend, v._value_tensor) for v in variables if v._backend is not backend]
    for v, value, home, _ in away:
        copy = backend.from_numpy(np.asarray(home.to_numpy(value)))
        v._value, v._backend, v._value_tensor = copy, backend, None
    try:
        yield
    finally:
        for v, value, home, tensor in away:
            v._value, v._backend, v._value_tensor = value, home, tensor


def _traced(who: str, fn: Callable[..., Any], backend: Backend, natives: list[Any], names: list[str],
            output_names: Sequence[str] | None, paths: Mapping[int, str],
            variables: list[Variable]) -> KernelGraph:
    state = [v._value for v in variables]
    n_args = len(natives)
    results: list[Any] = []

    def pure(args: list[Any], state_: list[Any]) -> tuple[list[Any], list[Any]]:
        out = fn(*[wrap(x, backend) for x in args])
        results.extend(_flatten(who, out, backend))
        return [t._data for t in results], []

    count_traces(1)  # (values that depend on the arguments cannot be read: TracedValueError)
    try:
        _, plan = trace(backend, pure, natives, state)
    except TracedValueError as exc:
        raise TracedValueError(
            f"{who}: the function reads a value that depends on its inputs (Python control flow on a "
            "tensor, float(t), t.numpy(), or a kernel whose output size depends on values): an exported "
            "graph is fixed. Use ops such as tp.where instead of Python branches. "
            f"(The trace said: {exc})") from exc
    finally:
        count_traces(-1)
    returned = f"the function returns {len(results)} tensors"
    out_names = _names(who, "output", len(results), output_names, returned)
    used = {i for step in plan.steps for i in step.inputs}
    outputs = tuple(zip(plan.outputs, out_names))
    used.update(i for i, _ in outputs)
    infos: dict[int, TensorInfo] = {}
    for i, x in enumerate(natives):
        infos[i] = _info(x, backend)
    chosen: dict[int, tuple[str, np.ndarray]] = {}
    for k, v in enumerate(variables):
        i = n_args + k
        infos[i] = _info(v._value, backend)
        if i in used:
            chosen[i] = (paths.get(id(v), v.name), np.asarray(backend.to_numpy(v._value)))
    constants = {i: np.asarray(backend.to_numpy(a)) for i, a in plan.constants.items() if i in used}
    for i, a in plan.constants.items():
        infos[i] = _info(a, backend)
    specs = current().specs.active
    for step in plan.steps:
        out_infos = specs[step.kernel].infer([infos[i] for i in step.inputs], step.attrs)
        infos.update(zip(step.outputs, out_infos))
    return KernelGraph(tuple(zip(range(n_args), names)), chosen, constants, tuple(plan.steps), outputs, infos)


def _info(native: Any, backend: Backend) -> TensorInfo:
    t = wrap(native, backend)
    return TensorInfo(tuple(t.shape), t._dtype)


def _native(who: str, value: Any, name: str) -> Any:
    if isinstance(value, Variable):
        value = Tensor.__array__(value)
    try:
        native = asarray(value, backend=TRACE_BACKEND)._data
        backend = current().instances[TRACE_BACKEND]
        return backend.from_numpy(np.array(backend.to_numpy(native)))  # (its own array: one value each)
    except Exception as exc:
        raise ExportError(f"{who}: example argument '{name}' must be a tensor or an array, got "
                          f"{type(value).__name__} ({exc}). Pass one example array per input.") from exc


def _names(who: str, kind: str, n: int, given: Sequence[str] | None, why: str) -> list[str]:
    """The names of the `n` inputs or outputs (`kind`): `given`, checked, or kind / kind_<i>."""
    if given is not None:
        names = [str(x) for x in given]
        if len(names) != n or len(set(names)) != n:
            raise ExportError(f"{who}: {kind}_names must be {n} distinct names ({why}), got {list(given)!r}.")
        return names
    return [kind] if n == 1 else [f"{kind}_{i}" for i in range(n)]


def _flatten(who: str, out: Any, backend: Backend) -> list[Tensor]:
    """The tensors `out` holds: one tensor, or a tuple/list of them."""
    items = list(out) if isinstance(out, (tuple, list)) else [out]
    for t in items:
        if not isinstance(t, Tensor) or t._backend is not backend:
            raise ExportError(f"{who}: the function must return a tensor or a tuple of tensors computed on "
                              f"the traced inputs; got {type(t).__name__}.")
    return items
