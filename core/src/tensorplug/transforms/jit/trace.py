"""The function a backend compiles for tp.jit: lists of native arrays in (the arguments' traced
values, the state holders' buffers), lists out (the results, the buffers of the state that
changed). It runs `f` on tensors wrapping the traced values, each holder bound to traced state
for the run, and restores every holder after it. A holder `f` touches without having been
given its state is noted on the ``Trace`` (the holders report to it) and the run ends in
``Retrace``: tp.jit then compiles again with that state as an input."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend
from tensorplug.core.context import count_traces, jit_trace_var
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType
from tensorplug.kernels.dispatcher import wrap
from tensorplug.transforms.jit.entries import Args, Compiled, Write
from tensorplug.transforms.jit.state import flatten, layout_of, leaves_of, pack, tensor_leaves, unflatten
from tensorplug.transforms.jit.trees import flatten_out, nonnegative, rebuild

__all__ = ["Trace", "Retrace", "traced_function"]



class Trace:
    """One run of ``f`` while a backend traces it: the holders bound to traced state, and the
    ones found touching state they were not given (with their state, to restore)."""

    __slots__ = ("backend", "bound", "found")

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.bound: set[int] = set()
        self.found: dict[int, tuple[Any, Any]] = {}

    def touch(self, holder: Any) -> None:
        """Called by a state holder before it reads or writes its state."""
        key = id(holder)
        if key not in self.bound and key not in self.found:
            self.found[key] = (holder, holder.jit_state())


class Retrace(Exception):
    """Out of a trace that met state it was not given: trace again with it."""

    def __init__(self, found: list[Any]) -> None:
        super().__init__("tp.jit: retrace")
        self.found = found


def traced_function(fn: Callable[..., Any], given_statics: tuple[int, ...], template: Args,
                    holders: list[Any], compiled: Compiled, backend: Backend) -> Callable[..., Any]:
    """The function the backend compiles for `fn` called with `template`'s arguments (its
    traced leaves taken from the natives), `holders` given their state laid out as
    ``compiled.layouts`` say; it fills `compiled`'s side data (results, writes) as it runs."""

    def pure(dyn_natives: list[Any], state_natives: list[Any]) -> tuple[list[Any], list[Any]]:
        args, kwargs = template
        statics = nonnegative(given_statics, len(args))
        traced = iter([wrap(x, backend) for x in dyn_natives])
        args = tuple(a if i in statics else rebuild(a, traced) for i, a in enumerate(args))
        kwargs = {k: rebuild(v, traced) for k, v in kwargs.items()}
        trace = Trace(backend)
        before: list[Any] = []  # per holder, its state before the trace (restored after)
        given: list[list[Tensor]] = []  # per holder, the traced tensors it was given
        after: list[Any] = []  # per holder, its state after `f`
        reset = jit_trace_var.set(trace)  # (cutting buffers runs ops)
        count_traces(1)
        try:
            state = iter(state_natives)
            for h, layout in zip(holders, compiled.layouts):
                buffers = [wrap(next(state), backend, spec.dtype) for spec in layout.buffers]
                leaves = leaves_of(layout, buffers)
                before.append(h.jit_state())
                h.set_jit_state(unflatten(layout.structure, iter(leaves)))
                trace.bound.add(id(h))
                given.append(leaves)
            out = fn(*args, **kwargs)
            out_natives: list[Any] = []
            tree = compiled.out_tree = flatten_out(out, backend, out_natives)
            compiled.single = tree[1] if tree[0] == "t" else None
        finally:  # (restored inside the trace: a Variable takes back its value as it was)
            after = [h.jit_state() for h in holders[:len(before)]]
            for h, old in zip(holders, before):
                h.set_jit_state(old)
            for h, old in trace.found.values():
                h.set_jit_state(old)
            count_traces(-1)
            jit_trace_var.reset(reset)
        if trace.found:
            raise Retrace([h for h, _ in trace.found.values()])
        new_state: list[Any] = []
        _writes(compiled, given, after, new_state, backend)
        return out_natives, new_state

    return pure


def _writes(compiled: Compiled, given: list[list[Tensor]], after: list[Any],
            new_state: list[Any], backend: Backend) -> None:
    """In a trace, after `f`: the holders whose state `f` changed (``compiled.writes``),
    their new state's buffers appended to `new_state` (the compiled function's state
    results). A buffer whose tensors are the ones the call was given is not returned: the
    holder gets the array the call took. A holder whose state changed structure gets all of
    it, laid out anew (packed where the call's state of that dtype was)."""
    packable: set[DType] = {spec.dtype for layout in compiled.layouts
                            for spec in layout.buffers if spec.packed}
    n_in = sum(len(layout.buffers) for layout in compiled.layouts)
    writes = []
    next_arrays: list[int] | None = []
    first = 0  # the index of the holder's first buffer in the state arguments
    for i, (layout, inputs, state) in enumerate(zip(compiled.layouts, given, after)):
        structure, leaves = flatten(state)
        arrays: list[int] = []
        if structure == layout.structure:
            new_layout = layout
            for k, spec in enumerate(layout.buffers):
                if all(leaves[j]._data is inputs[j]._data for j in spec.leaves):
                    arrays.append(first + k)  # unchanged: the array the call took
                else:
                    arrays.append(n_in + len(new_state))
                    new_state.append(_buffer(leaves, spec.leaves, backend))
        else:
            new_layout = layout_of(structure, tensor_leaves(structure), packable.__contains__)
            for spec in new_layout.buffers:
                arrays.append(n_in + len(new_state))
                new_state.append(_buffer(leaves, spec.leaves, backend))
            next_arrays = None  # the next call has another layout
        if arrays != list(range(first, first + len(layout.buffers))):  # something changed
            writes.append(Write(i, new_layout, tuple(arrays)))
        if next_arrays is not None:
            next_arrays.extend(arrays)
        first += len(layout.buffers)
    compiled.writes = writes
    compiled.next_arrays = None if next_arrays is None else tuple(next_arrays)


def _buffer(leaves: Sequence[Tensor], indices: tuple[int, ...], backend: Backend) -> Any:
    """The native array of a buffer of a holder's new state (in a trace: packed with ops)."""
    if len(indices) > 1:
        t = pack([leaves[j] for j in indices])
    else:
        t = leaves[indices[0]]
    if t._backend is backend:
        return t._data
    return backend.from_numpy(np.asarray(t._backend.to_numpy(t._data)))


