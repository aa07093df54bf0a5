"""Which kernels ran, on which backend, registered by whom, and what they cost:
``with count_kernels() as calls:`` counts them; ``with tp.profile() as prof:`` records each
call's time, shapes and bytes (``tensorplug.tools.kernel_events`` holds what it gives).

Both ride on the engine's recorder list (the one tapes use), so they cost nothing while off:
the dispatcher takes time stamps only while a profile records somewhere in the process.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from time import perf_counter_ns
from typing import Any

from tensorplug.core.context import (
    gradient_var,
    jit_trace_var,
    profiling,
    push_recorder,
    recorders_var,
    remove_recorder,
)
from tensorplug.core.records import Record
from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.tools.kernel_events import Info, KernelEvent, Profile
from tensorplug.tools.memory import live_tensors, nbytes

__all__ = ["KernelCalls", "count_kernels", "profile", "Profile", "KernelEvent", "time_compiled"]


class KernelCalls(Record):
    """Kernel calls counted by (kernel name, backend name)."""

    __slots__ = ("counts",)
    counts: Counter[tuple[str, str]]

    def __init__(self, counts: Counter[tuple[str, str]]) -> None:
        self._set(counts=counts)

    def rows(self) -> list[tuple[str, str, str, int]]:
        """(kernel, backend, registered by, calls), most called first."""
        out = []
        for (kernel, backend), n in self.counts.most_common():
            reg = current().kernels.registration((kernel, backend))
            out.append((kernel, backend, reg.source if reg else "?", n))
        return out

    def total(self) -> int:
        return sum(self.counts.values())


class _Counter:
    """A recorder: the engine calls record() for every kernel run while it is active."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    def record(self, name: str, inputs: Any, attrs: Mapping[str, Any], outputs: tuple[Any, ...],
               custom: Any = None, start: int = 0, direct: Any = None) -> None:
        if custom is None and name in current().specs.active and outputs:
            self.counts[(name, outputs[0]._backend.name)] += 1


@contextlib.contextmanager
def count_kernels() -> Iterator[KernelCalls]:
    """Count the kernels run in this thread inside the block."""
    counter = _Counter()
    push_recorder(counter)
    try:
        yield KernelCalls(counter.counts)
    finally:
        remove_recorder(counter)


# -- tp.profile -------------------------------------------------------------------------------
_lock = threading.Lock()
_NAMESPACED = {"tensorplug.families.nn.ops": "nn.", "tensorplug.families.creation.random": "random."}
_RULE_MODULES = ("spec", "gradients", "jvps", "batching")


def _holds_ops(module: str) -> bool:
    """Whether `module` is one of the core's op modules: in ``tensorplug.ops`` or a family's
    folder (not its spec or rules, not ``families/_common``)."""
    if module.startswith("tensorplug.ops."):
        return True
    parts = module.split(".")
    return (len(parts) == 4 and parts[1] == "families" and not parts[2].startswith("_")
            and parts[3] not in _RULE_MODULES)


class _LiveBytes:
    """The bytes of the live tensors it follows (each distinct native array once), and their
    peak. A tensor's death is noted by a weakref callback and counted at the next update
    (callbacks may run at any point of the recording thread)."""

    def __init__(self) -> None:
        self.live = 0
        self.peak = 0
        self._natives: dict[int, list[int]] = {}  # id of a native -> [tensors following it, bytes]
        self._refs: dict[int, tuple[weakref.ref[Tensor], int]] = {}  # id of a weakref -> (it, native id)
        self._dead: list[int] = []

    def follow(self, t: Tensor) -> None:
        self.settle()
        key = id(t._data)
        entry = self._natives.get(key)
        if entry is None:
            entry = self._natives[key] = [0, nbytes(t)]
            self.live += entry[1]
            self.peak = max(self.peak, self.live)
        entry[0] += 1
        ref = weakref.ref(t, self._died)
        self._refs[id(ref)] = (ref, key)

    def _died(self, ref: weakref.ref[Tensor]) -> None:
        self._dead.append(id(ref))

    def settle(self) -> None:
        """Count the tensors that died since the last update."""
        dead = self._dead
        while dead:
            _, key = self._refs.pop(dead.pop())
            entry = self._natives[key]
            entry[0] -= 1
            if not entry[0]:
                del self._natives[key]
                self.live -= entry[1]

    def stop(self) -> None:
        self.settle()
        self._refs.clear()  # (the weakrefs go, and their callbacks with them)
        self._natives.clear()


class _Profiler:
    """The recorder of one ``tp.profile()`` block."""

    def __init__(self, result: Profile) -> None:
        self.result = result
        self.memory = _LiveBytes()
        self._sources: dict[tuple[str, str], str] = {}
        self._op_names: dict[Any, str] | None = None  # code object of a plugin's op -> its name

    def start(self) -> None:
        for t in live_tensors():
            self.memory.follow(t)
        self.result.start_bytes = self.result.peak_bytes = self.memory.live
        self.result.start_ns = perf_counter_ns()

    def stop(self) -> None:
        self.result.end_ns = perf_counter_ns()
        self.memory.settle()
        self.result.peak_bytes = max(self.result.peak_bytes, self.memory.peak)
        self.result.end_bytes = self.memory.live
        self.memory.stop()

    def record(self, name: str, inputs: Sequence[Tensor], attrs: Mapping[str, Any],
               outputs: Sequence[Tensor], custom: Any = None, start: int = 0,
               direct: Any = None) -> None:
        if custom is not None:  # (a custom gradient's link, not a kernel call)
            return
        backend = outputs[0]._backend if outputs else inputs[0]._backend if inputs else None
        traced = jit_trace_var.get() is not None
        if backend is not None and not traced:
            backend.synchronize([t._data for t in outputs])  # (asynchronous backends: jax)
        end = perf_counter_ns()
        backend_name = backend.name if backend is not None else "?"
        given = {id(t._data) for t in inputs}
        new = 0
        for t in outputs:
            if id(t._data) not in given:
                new += nbytes(t)
            self.memory.follow(t)
        gradient = gradient_var.get()
        self.result.events.append(KernelEvent(
            name, backend_name, self._source(name, backend_name), _infos(inputs), _infos(outputs),
            start or end, end - start if start else 0, new, op=self._calling_op(sys._getframe(1)),
            phase="backward" if gradient is not None else "forward",
            gradient_of=gradient[0] if gradient is not None else "", traced=traced,
            thread=threading.get_ident()))

    def compiled_call(self, name: str, backend: Any, start: int, inputs: Sequence[Any],
                      outputs: Sequence[Any]) -> None:
        """Note one call of a compiled function (tp.jit) of native inputs and outputs."""
        backend.synchronize(list(outputs))
        end = perf_counter_ns()
        given = {id(a) for a in inputs}
        new = sum(math.prod(backend.shape_of(o)) * backend.dtype_of(o).itemsize
                  for o in outputs if id(o) not in given)
        self.result.events.append(KernelEvent(
            f"jit({name})", backend.name, "tp.jit", _native_infos(inputs, backend),
            _native_infos(outputs, backend), start, end - start, new, category="jit",
            thread=threading.get_ident()))

    def _source(self, name: str, backend: str) -> str:
        found = self._sources.get((name, backend))
        if found is None:
            reg = current().kernels.registration((name, backend))
            found = self._sources[(name, backend)] = reg.source if reg is not None else "?"
        return found

    def _calling_op(self, frame: Any) -> str:
        """The outermost public op in the calling frames before the caller's own code: core
        ops by their module, plugins' ops by their registered function."""
        if self._op_names is None:
            self._op_names = {getattr(c.func, "__code__", None): n for n, c in current().ops.active.items()}
        op = ""
        for _ in range(64):
            if frame is None:
                break
            module = frame.f_globals.get("__name__", "")
            plugin_op = self._op_names.get(frame.f_code)
            if plugin_op is not None:
                op = plugin_op
            elif _holds_ops(module):
                if not frame.f_code.co_name.startswith("_"):
                    op = _NAMESPACED.get(module, "") + frame.f_code.co_name
            elif not module.startswith("tensorplug"):
                break
            frame = frame.f_back
        return op


def _infos(tensors: Sequence[Tensor]) -> tuple[Info, ...]:
    return tuple((tuple(t._backend.shape_of(t._data)), t._dtype.name) for t in tensors)


def _native_infos(natives: Sequence[Any], backend: Any) -> tuple[Info, ...]:
    return tuple((tuple(backend.shape_of(a)), backend.dtype_of(a).name) for a in natives)


@contextlib.contextmanager
def profile() -> Iterator[Profile]:
    """Record every kernel call in this thread inside the block: ``with tp.profile() as
    prof: ...; print(prof.table()); prof.export_chrome_trace("trace.json")``.

    Per call: kernel, backend, who registered it, the op that called it, input and output
    shapes and dtypes, wall time (``perf_counter_ns``, after waiting for asynchronous backends'
    results) and the bytes of new outputs; forward or backward. The live tensor bytes are
    followed from the block's start (tensors alive then, and every kernel output; tensors made
    otherwise, e.g. by ``tp.asarray``, are not), giving ``peak_bytes``; finding the tensors
    alive at the start walks the process's objects once (as ``tp.memory()`` does), so garbage
    not yet collected counts as alive: call ``gc.collect()`` before the block when tensors
    from before are freed inside it, or the peak is under-counted. Costs
    nothing while no profile records; while one does, every kernel call in the process takes
    time stamps.

    Under ``tp.jit`` a compiled call is one event, ``jit(<function>)``, timing the whole
    computation (a replayed plan on numpy, an XLA call on jax): its kernels do not run one by
    one and are not seen. The kernels run while a function is traced (its first calls) are
    recorded with ``traced=True``; under jax they run on abstract values, so their times are
    tracing costs.
    """
    result = Profile()
    recorder = _Profiler(result)
    with _lock:
        profiling[0] += 1
    try:
        recorder.start()
        push_recorder(recorder)
        try:
            yield result
        finally:
            remove_recorder(recorder)
            recorder.stop()
    finally:
        with _lock:
            profiling[0] -= 1


def time_compiled(name: str, backend: Any, run: Callable[[list[Any], list[Any]], tuple[list[Any], list[Any]]],
                  args: list[Any], state: list[Any]) -> tuple[list[Any], list[Any]]:
    """``run(args, state)``, a compiled tp.jit call, noted by the profiles recording in this
    context (tp.jit calls this only while some profile records)."""
    profiles = [r for r in recorders_var.get() if isinstance(r, _Profiler)]
    if not profiles:
        return run(args, state)
    start = perf_counter_ns()
    outputs, new_state = run(args, state)
    for p in profiles:
        p.compiled_call(name, backend, start, list(args) + list(state), list(outputs) + list(new_state))
    return outputs, new_state
