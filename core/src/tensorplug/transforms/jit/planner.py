"""The planner: ``tp.jit`` for backends without a compiler of their own.

``compile_to_plan(backend, fn)`` is what such a backend's ``Backend.compile`` returns. ``fn`` is
tp.jit's pure function of native arrays (``fn(args, state) -> (outputs, new_state)``). On its
first call for a set of input shapes and dtypes it runs ``fn`` once, for real, recording every
kernel call (the forward pass, the gradient's backward pass, the optimizer's update): that is
the trace. From it comes a ``Plan``: the kernel calls needed for the outputs that depend on the
inputs, in order, each with the function the dispatcher ran (the direct function it names to
the recorders, else the kernel function: no kernel runs twice while tracing) and its
attributes, over numbered values: the inputs, the constants (arrays from outside the trace's
kernels, and what kernels computed from constants alone, folded) and the kernels' outputs. A
plan is one generated Python function, a straight sequence of calls (``Plan.source`` shows it), so
that later calls run no op layer, no tape and no spec work, and give what eager calls give, bit
for bit (the same kernels on the same arrays). Each intermediate is deleted after its last use
(``del`` lines), so that its memory is reused while still in cache, as in eager code.

As under jax.jit, values are not known while tracing: reading one that depends on the inputs
(``float(t)``, ``bool(t)``, ``t.numpy()``, Python control flow on it) raises TracedValueError
at trace time instead of baking the trace's value into the plan; so does a kernel whose output
length depends on such values (NonZero, Unique, ...: its spec infers -1 for it), whose length
the code after it would read as a fixed number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend
from tensorplug.core.context import plan_trace_var, push_recorder, remove_recorder
from tensorplug.core.records import Record
from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.errors import TensorplugError, TracedValueError
from tensorplug.kernels.call_checks import explain_failure
from tensorplug.kernels.dispatcher import wrap
from tensorplug.kernels.kernel_spec import TensorInfo
from tensorplug.registry._slots import CHANGES

__all__ = ["Plan", "Step", "PlannedFunction", "trace"]

#: tp.jit's pure function of native arrays: (arguments, state) -> (outputs, new state)
PureFunction = Callable[[list[Any], list[Any]], tuple[list[Any], list[Any]]]


class Step(Record):
    """One kernel call of a plan: its kernel, the function run and how (``direct``: on the
    native inputs alone; else ``func(inputs, attrs, backend)``), and the values it reads and
    writes (indices)."""

    __slots__ = ("kernel", "func", "direct", "attrs", "inputs", "outputs", "single")
    kernel: str
    func: Callable[..., Any]
    direct: bool
    attrs: Mapping[str, Any]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    single: bool  # the kernel returns one array (not a tuple)

    def __init__(self, kernel: str, func: Callable[..., Any], direct: bool, attrs: Mapping[str, Any],
                 inputs: tuple[int, ...], outputs: tuple[int, ...], single: bool) -> None:
        self._set(kernel=kernel, func=func, direct=direct, attrs=attrs, inputs=inputs, outputs=outputs,
                  single=single)


class _Recorder:
    """Records a trace's kernel calls (a recorder, as tapes are) and names each array it meets
    by a value index: inputs first, then constants and kernel outputs as they come."""

    def __init__(self, backend: Backend, inputs: Sequence[Any]) -> None:
        self.backend = backend
        self.index: dict[int, int] = {}  # id of a native array -> its value index
        self.keep: list[Any] = []  # every array met, alive while tracing (ids stay unique)
        self.constants: dict[int, Any] = {}  # value index -> array, for arrays no kernel made
        self.steps: list[Step] = []
        self.traced: set[int] = set()  # ids of arrays that depend on the inputs
        for native in inputs:
            self.traced.add(id(native))
            self._value(native)

    def depends_on_inputs(self, native: Any) -> bool:
        """Whether `native` (an array met while tracing) was computed from the inputs."""
        return id(native) in self.traced

    def _value(self, native: Any) -> int:
        key = id(native)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.keep)
            self.keep.append(native)
        return found

    def record(self, name: str, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any],
               outputs: tuple[Tensor, ...], custom: Any = None, start: int = 0,
               direct: Callable[..., Any] | None = None) -> None:
        if custom is not None:  # a custom gradient's link: its values come from kernels recorded
            return
        for t in inputs + outputs:
            if t._backend is not self.backend:
                raise TensorplugError(
                    f"tp.jit on backend '{self.backend.name}': kernel '{name}' ran on backend "
                    f"'{t._backend.name}' inside the function; a planned function runs on one backend."
                )
        if not any(id(t._data) in self.traced for t in inputs):
            # computed from constants alone: its outputs are constants, with the values they
            # have now (constant folding: the call is not replayed)
            for t in outputs:
                self.constants.setdefault(self._value(t._data), t._data)
            return
        ins = []
        for t in inputs:
            known = id(t._data) in self.index
            i = self._value(t._data)
            if not known:  # an array from outside the trace's kernels: a constant
                self.constants[i] = t._data
            ins.append(i)
        spec = current().specs.active[name]
        infos = spec.infer([TensorInfo(t.shape, t._dtype) for t in inputs], attrs)
        if any(-1 in info.shape for info in infos):  # (a length the spec cannot know: the values')
            raise TracedValueError(
                f"tp.jit on backend '{self.backend.name}': kernel '{name}' gives an output whose "
                "length depends on the values of its inputs, which depend on the function's inputs: "
                "a plan replays the lengths of its trace, as jax.jit compiles fixed shapes. Call it "
                "outside tp.jit, or use a fixed-size formulation (e.g. tp.where with a mask, or the "
                "kernel's size argument where it has one).")
        outs = tuple(self._value(t._data) for t in outputs)
        self.traced.update(id(t._data) for t in outputs)
        # the function the dispatcher ran: the direct one it names, else the kernel function
        if direct is None:
            config = current().kernels.active[(name, self.backend.name)]
            direct_used, func = False, self.backend.kernel_function(config)
        else:
            direct_used, func = True, direct
        single = len(spec.outputs) == 1
        self.steps.append(Step(name, func, direct_used, dict(attrs), tuple(ins), outs, single))


class Plan:
    """The kernel calls of one trace, as one generated function of the input arrays."""

    def __init__(self, backend: Backend, steps: list[Step], n_args: int, n_state: int,
                 constants: dict[int, Any], outputs: list[int], new_state: list[int]) -> None:
        self.backend = backend
        self.n_args = n_args
        self.n_state = n_state
        self.constants = constants
        self.outputs, self.new_state = outputs, new_state  # (value indices; export reads them)
        self.steps = _needed(steps, outputs + new_state)
        self.source, names = _generate(self.steps, n_args, n_state, constants, outputs, new_state)
        namespace: dict[str, Any] = {"B": backend, **names}
        exec(compile(self.source, f"<tp.jit plan: {len(self.steps)} kernel calls>", "exec"), namespace)  # noqa: S102
        self.run: PureFunction = namespace["plan"]

    def __call__(self, args: list[Any], state: list[Any]) -> tuple[list[Any], list[Any]]:
        try:
            return self.run(args, state)
        except TensorplugError:
            raise
        except Exception as exc:  # find the step that failed, and explain it from its spec
            raise self._explain(args, state, exc) from exc

    def _explain(self, args: list[Any], state: list[Any], exc: Exception) -> TensorplugError:
        """Run the steps one by one to find the one that raises; its failure, explained."""
        values: dict[int, Any] = dict(enumerate(list(args) + list(state)))
        values.update(self.constants)
        for step in self.steps:
            ins = [values[i] for i in step.inputs]
            try:
                if step.direct:
                    out = step.func(*ins)
                else:
                    out = step.func(tuple(ins), dict(step.attrs), self.backend)
            except TensorplugError as known:
                return known
            except Exception as failure:
                tensors = [wrap(a, self.backend) for a in ins]
                return explain_failure(step.kernel, self.backend, tensors, step.attrs, failure)
            values.update(zip(step.outputs, (out,) if step.single else out))
        return TensorplugError(f"tp.jit plan on backend '{self.backend.name}' raised "
                               f"{type(exc).__name__}: {exc}")


def _needed(steps: list[Step], wanted: list[int]) -> list[Step]:
    """The steps the wanted values depend on, in their order (the rest of the trace is dropped)."""
    live = set(wanted)
    kept = []
    for step in reversed(steps):
        if live.intersection(step.outputs):
            kept.append(step)
            live.update(step.inputs)
    kept.reverse()
    return kept


def _generate(steps: list[Step], n_args: int, n_state: int, constants: dict[int, Any],
              outputs: list[int], new_state: list[int]) -> tuple[str, dict[str, Any]]:
    """Python source of the plan (``def plan(args, state)``) and the names it refers to."""
    names: dict[str, Any] = {}
    for i, array in constants.items():
        names[f"c{i}"] = array

    def ref(i: int) -> str:
        if i < n_args:
            return f"a{i}"
        if i < n_args + n_state:
            return f"s{i - n_args}"
        return f"c{i}" if i in constants else f"v{i}"

    lines = ["def plan(args, state):"]
    if n_args:
        lines.append(f"    {''.join(f'a{i}, ' for i in range(n_args))}= args")
    if n_state:
        lines.append(f"    {''.join(f's{i}, ' for i in range(n_state))}= state")
    # an intermediate is deleted after its last use, as eager code drops it: its memory goes
    # back to the allocator while still in cache, for the next step's output
    last_use = {i: k for k, step in enumerate(steps) for i in step.inputs}
    kept = set(outputs) | set(new_state)
    dead_after: dict[int, list[str]] = {}
    for i, k in sorted(last_use.items()):
        if i >= n_args + n_state and i not in constants and i not in kept:
            dead_after.setdefault(k, []).append(ref(i))
    for k, step in enumerate(steps):
        fn = f"f{k}"
        names[fn] = step.func
        ins = ", ".join(ref(i) for i in step.inputs)
        target = ref(step.outputs[0]) if step.single else "".join(f"{ref(i)}, " for i in step.outputs)
        if step.direct:
            call = f"{fn}({ins})"
        else:
            names[f"attrs{k}"] = step.attrs
            call = f"{fn}(({ins}{',' if len(step.inputs) == 1 else ''}), attrs{k}, B)"
        lines.append(f"    {target} = {call}  # {step.kernel}")
        if k in dead_after:
            lines.append(f"    del {', '.join(dead_after[k])}")
    returned = ", ".join(ref(i) for i in outputs)
    lines.append(f"    return [{returned}], [{', '.join(ref(i) for i in new_state)}]")
    return "\n".join(lines) + "\n", names


def trace(backend: Backend, fn: PureFunction, args: list[Any],
          state: list[Any]) -> tuple[tuple[list[Any], list[Any]], Plan]:
    """Run `fn` once on `args` and `state`, recording it: its results, and its plan."""
    args, state = _distinct(backend, list(args) + list(state), len(args))
    recorder = _Recorder(backend, list(args) + list(state))
    token = plan_trace_var.set(recorder)
    push_recorder(recorder)
    try:
        outputs, new_state = fn(args, state)
    finally:
        remove_recorder(recorder)
        plan_trace_var.reset(token)
    out_index = [recorder._value(a) for a in outputs]
    state_index = [recorder._value(a) for a in new_state]
    for i in out_index + state_index:  # an array no kernel made and no input: a constant
        if i >= len(args) + len(state) and not any(i in s.outputs for s in recorder.steps):
            recorder.constants.setdefault(i, recorder.keep[i])
    plan = Plan(backend, recorder.steps, len(args), len(state), recorder.constants, out_index, state_index)
    return (outputs, new_state), plan


def _distinct(backend: Backend, arrays: list[Any], n_args: int) -> tuple[list[Any], list[Any]]:
    """`arrays` (the arguments, then the state), each a distinct object: an array passed twice
    is copied for its second place, since the trace knows an array by its identity and the
    plan must read each place from its own input when replayed on arrays that differ."""
    seen: set[int] = set()
    out = []
    for a in arrays:
        if id(a) in seen:
            a = backend.from_numpy(np.array(backend.to_numpy(a)))
        seen.add(id(a))
        out.append(a)
    return out[:n_args], out[n_args:]


class PlannedFunction:
    """tp.jit's pure function compiled by planning: traced on its first call, its plan replayed
    at every call after (tp.jit compiles once per argument shapes and dtypes, so one plan
    serves every call), and traced again once the kernel registry changes (a kernel registered
    or overridden since applies, as it would eagerly). What a backend's ``compile`` returns:
    ``PlannedFunction(self, fn)``."""

    def __init__(self, backend: Backend, fn: PureFunction) -> None:
        self.backend = backend
        self.fn = fn
        self.plan: Plan | None = None
        self.version = -1  # the registries' CHANGES the plan was traced under

    def __call__(self, args: list[Any], state: list[Any]) -> tuple[list[Any], list[Any]]:
        plan = self.plan
        if plan is not None and self.version == CHANGES[0]:
            return plan(args, state)
        version = CHANGES[0]
        results, self.plan = trace(self.backend, self.fn, args, state)
        self.version = version
        return results
