"""An optimizer's side of tp.jit's state protocol (see ``tensorplug.jit``): the methods
``_jit_state``, ``_jit_bind``, ``_jit_unbind``, ``_jit_commit`` and ``_compiled_config`` of
``Optimizer``, written here as functions of the optimizer.

The slots go in and come out of the compiled function, packed (``_packed``). So do the step
count (a float64 scalar that stays on the device from call to call) and the learning rate
(uploaded when it changes; a schedule's values for this call's steps, computed on the host, as
in eager steps): the per-step hyperparameters are computed from them inside the compiled step
(``_traced_hyper``), or, for an optimizer that has only ``_hyper``, on the host and passed in.
The rest of the configuration (get_config) is compiled in: a change compiles again. `memo` is
the number of steps one call takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._state import jit_trace_var
from ..tensor import Tensor
from ._packed import layout_of, loose_layout, pack, unpack, zero_buffers

if TYPE_CHECKING:
    from .optimizer import Optimizer

__all__ = ["state", "compiled_config", "bind", "unbind", "commit", "JitSteps", "STEP_ATTRS"]


def state(self: Optimizer, memo: Any, backend: Any) -> tuple[Any, list[Any]]:
    """(token, natives) for the next compiled call: the slots (packed as the last call left
    them, else one native each), then the step count and learning rate as the mode needs."""
    ready = self._jit_ready
    if ready is not None and ready[0] is backend and ready[3] == memo:
        return ready[1], ready[2]  # the common case, a call after a call
    steps = memo or 0
    names = self.slot_names
    pending = self._jit_natives
    # the slots as the last compiled call left them (packed, or one each), unless its parameters
    # can no longer share a buffer (sharded since); else the slots as tensors, one leaf each,
    # packed by the compiled step when the backend can join them and their parameters
    if pending is not None and pending[4] is backend and (
            pending[2][1] is None or _joinable(pending[1], (), backend)):
        keys, layout = pending[0], pending[2]
        leaves: list[Any] = pending[3][:len(layout[0])]
        packs = layout[1] is not None
    else:
        slots = self._slots
        keys = tuple(slots)
        tensors = [slots[k][1][n] for k in keys for n in names]
        leaves = [t._data if t._backend is backend else np.asarray(t.numpy()) for t in tensors]
        layout = loose_layout(tensors)
        packs = _joinable([slots[k][0] for k in keys], leaves, backend)
    if not steps:
        return (keys, names, layout, packs, None, 0, self._compiled_config()), leaves
    if not self._device_hyper:  # the host computes every step's hyperparameters
        hyper_names: tuple[str, ...] = ()
        values: list[float] = []
        for j in range(1, steps + 1):
            hyper = self._hyper(self.iterations + j)
            hyper_names = tuple(hyper)
            values.extend(hyper.values())
        leaves.append(np.array(values, np.float64))  # one array for all: one transfer
        return (keys, names, layout, packs, hyper_names, steps, self._compiled_config()), leaves
    if pending is not None and pending[4] is backend and pending[5] == self.iterations:
        leaves.append(pending[3][-1])  # the step count the last call left on the device
    else:
        leaves.append(backend.from_numpy(np.asarray(self.iterations, np.float64)))
    lr = self.learning_rate
    if lr.__class__ is float or lr.__class__ is int:  # a constant: uploaded when it changes
        cached = self._jit_lr
        if cached is None or cached[0] != lr or cached[2] is not backend:
            cached = self._jit_lr = (lr, backend.from_numpy(np.asarray(lr, np.float64)), backend)
        leaves.append(cached[1])
        token = (keys, names, layout, packs, "lr", steps, self._compiled_config())
        # the next call's state: this call's results, and the same learning rate (_jit_commit)
        self._jit_ready = (backend, token, leaves, steps)
        return token, leaves
    else:  # a schedule (or a tensor): this call's values
        leaves.append(np.array([self.current_learning_rate(self.iterations + j)
                                for j in range(1, steps + 1)], np.float64))
        mode = "lr per step"
    return (keys, names, layout, packs, mode, steps, self._compiled_config()), leaves


def compiled_config(self: Optimizer) -> tuple[Any, ...]:
    """The configuration a compiled step bakes in: everything in get_config but the
    learning rate (read at every call). Subclasses may return the same more cheaply."""
    return tuple(v for k, v in self.get_config().items() if k != "learning_rate")


def bind(self: Optimizer, token: Any, leaves: list[Tensor] | None) -> Any:
    """In a trace: take the traced state `leaves` (None: a holder found touching state, which
    keeps its own); returns the snapshot ``unbind`` restores."""
    attrs = self.__dict__  # (the slots as they are: packed ones are not cut out in a trace)
    snapshot = (self.iterations, dict(self._slot_table), attrs["_jit_natives"], self._step_hyper,
                self._step_cache, self._tree_structure, self._jit)
    self._jit = JitSteps()
    trace = jit_trace_var.get()
    self._jit.backend = trace.backend if trace is not None else None
    self._jit.bound = leaves is not None
    if leaves is not None:
        keys, names, layout, self._jit.packs, mode, steps, _ = token
        slot_leaves = leaves if layout[1] is None else unpack(leaves, layout)
        rest = leaves[len(layout[0]):]
        pending = attrs["_jit_natives"]
        refs = dict(zip(pending[0], pending[1])) if pending is not None else {
            k: ref for k, (ref, _) in self._slot_table.items()}
        table = dict(self._slot_table)
        it = iter(slot_leaves)
        for k in keys:
            table[k] = (refs.get(k), {n: next(it) for n in names})
        attrs["_slot_table"], attrs["_jit_natives"] = table, None
        if steps and (mode == "lr" or mode == "lr per step"):  # computed here, from the traced inputs
            count, lr = rest[-2], rest[-1]
            self._jit.count = count
            self._jit.hyper = [self._traced_hyper(count + float(j), lr if mode == "lr" else lr[j - 1])
                               for j in range(1, steps + 1)]
        elif steps:  # the host's values, in a row
            per_step = len(mode)
            packed = rest[-1]
            self._jit.hyper = [{n: packed[j * per_step + i] for i, n in enumerate(mode)}
                               for j in range(steps)]
    return snapshot


def unbind(self: Optimizer, snapshot: Any) -> tuple[Any, Any]:
    """After a trace: restore `snapshot`; returns ((token, new state tensors) or None, memo)."""
    assert self._jit is not None
    jit = self._jit
    steps, count = jit.steps, jit.count
    written = None
    if steps:  # the new slots (packed, see _packed; or one each), and the step count
        table = self._slots
        keys = tuple(table)
        refs = [table[k][0] for k in keys]
        slots = [table[k][1][n] for k in keys for n in self.slot_names]
        if jit.packs:
            layout = layout_of(slots)
            leaves = pack(slots, layout)
        else:
            layout, leaves = loose_layout(slots), slots
        if count is not None:  # the step count moves on, on the device
            leaves.append(count + float(steps))
        written = ((keys, refs, layout, count is not None), leaves)
    attrs = self.__dict__
    (attrs["iterations"], attrs["_slot_table"], attrs["_jit_natives"], self._step_hyper,
     self._step_cache, self._tree_structure, self._jit) = snapshot
    if (written is not None and not jit.bound and jit.backend is not None and jit.packs
            and attrs["_jit_natives"] is None and not attrs["_slot_table"]):
        # found by a trace before its first step: the slots it creates exist from now on
        # (zeros, as a first step creates them), packed as the compiled step leaves them, so
        # that its first compiled version is also the steady one (one compilation, not two)
        attrs["_jit_natives"] = (keys, refs, layout, zero_buffers(layout), jit.backend, None)
    return written, steps


def commit(self: Optimizer, token: Any, natives: list[Any], memo: Any, backend: Any) -> None:
    """After a compiled call: keep its new slots and step count (and the next call's state)."""
    keys, refs, layout, counted = token  # every slot the optimizer has: earlier pending ones are stale
    attrs = self.__dict__  # (not through __setattr__: a commit is no change to check again)
    iterations = attrs["iterations"] = self.iterations + memo
    attrs["_jit_natives"] = (keys, refs, layout, natives, backend, iterations if counted else None)
    ready = self._jit_ready
    if (counted and ready is not None and ready[0] is backend and ready[1][0] == keys
            and ready[1][2] == layout):
        # the same slots, packed alike, and step count, the same learning rate: the next call's state
        attrs["_jit_ready"] = (backend, ready[1], natives + ready[2][-1:], ready[3])
    else:
        attrs["_jit_ready"] = None


#: what an optimizer's steps (eager or compiled) write; setting any other attribute is a change
#: of configuration, learning rate or step count that a compiled call checks (``_jit_ready``)
STEP_ATTRS = frozenset({"_step_cache", "_step_hyper", "_jit", "_jit_natives", "_jit_lr", "_jit_ready"})


class JitSteps:
    """An optimizer's steps during one tp.jit trace: how many, and the traced hyperparameters
    of each (None while the trace only finds out what state it needs)."""

    __slots__ = ("steps", "hyper", "count", "bound", "backend", "packs")

    def __init__(self) -> None:
        self.packs = True  # the new slots go out packed (a trace that finds the state: so far)
        self.bound = False  # given its state (not found touching it)
        self.backend: Any = None  # the backend tracing
        self.steps = 0
        self.hyper: list[dict[str, Tensor]] | None = None
        self.count: Tensor | None = None  # the traced step count, when computed on the device


def _joinable(refs: Sequence[Any], natives: Sequence[Any], backend: Any) -> bool:
    """Whether the slots' buffers may be joined: the backend says so of them and of the
    parameters (the live Variables of `refs`, on `backend`) they belong to."""
    params = [v._value for v in (ref() for ref in refs if ref is not None)
              if v is not None and v._backend is backend]
    return bool(backend.joinable([*params, *natives]))
