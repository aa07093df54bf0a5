"""``tp.jit``: compile a function with the active backend when it can; otherwise run eagerly.

A backend compiles through ``Backend.compile``: jax with ``jax.jit`` (one XLA computation);
the numpy backend by planning (``tensorplug.transforms.jit.planner``: the kernel calls of one
trace, replayed, with eager results bit for bit). A backend whose ``compile`` returns None runs
``f`` eagerly.

The core is explicit: ``f(*args) -> results``, pytrees of tensors in and out. State can travel
that way, optax-style: parameters and an optimizer's state (``opt.init``, ``opt.apply``) as
trees in, the new trees out, and nothing else read or written::

    opt = tp.optimizers.Adam(0.01)

    @tp.jit
    def step(params, opt_state, x, y):
        loss, grads = tp.value_and_grad(loss_fn)(params, x, y)
        params, opt_state = opt.apply(opt_state, params, grads)
        return params, opt_state, loss

    opt_state = opt.init(params)
    params, opt_state, loss = step(params, opt_state, x, y)  # one trace, then compiled calls

Functions that read and write state holders (Variables, optimizers) instead, as TF.js-style
code does, are a layer on top of it (**State**, below). In detail:

- **Arguments.** Tensors and numpy arrays anywhere in the arguments (nested lists, tuples and
  dicts) are traced: the compiled function is specialized to their shapes and dtypes and
  compiled again for new ones. Every other leaf (Python numbers, strings, None) and every
  argument named in ``static_argnums`` is a compile-time constant: it must be hashable, and a
  new value compiles again. A Variable passed as an argument is the Variable itself (state,
  below), as if ``f`` had closed over it. Every trace for one key (the backend may trace
  again on its own, e.g. after ``jax.clear_caches()``) runs ``f`` on the arguments of the key's
  first call, its traced leaves replaced by the call's traced values.
- **State.** ``f`` may read and assign Variables and step optimizers: state holders (see
  ``tensorplug.transforms.jit.state``), whose state is a tree of tensors (a Variable's: its value; an
  optimizer's: its ``OptimizerState``). While ``f`` is traced they report what they touch
  (``Trace.touch``); tp.jit then passes their state into the compiled function at every call
  and gives them the new state after it, the same way for every holder, so that no traced value
  escapes and the state moves exactly as eager calls would move it. A holder's tensors are
  traced; its other leaves (an optimizer's settings such as Adam's betas, or a learning-rate
  schedule) are compiled in, and a new value compiles again. State set between calls (a
  Variable assigned, ``opt.learning_rate`` or ``opt.iterations`` set) is seen at the next call.
  Finding the state costs one trace on the first call (its compiled function is never
  used), which finds all the holders ``f`` touches; ``f`` is then traced with their state as
  inputs. There is no third trace: ``f`` must touch the same holders whatever their values
  (StateError otherwise). State known before a trace needs no such trace: explicit state
  (above), Variables passed as arguments, and, for new argument shapes, the holders ``f``
  touched for others.
- **Results** are tensors (nested in lists, tuples and dicts as ``f`` returned them);
  non-tensor leaves ``f`` returns are constants of the trace.
- While ``tp.profile`` records, a compiled call is one event (``jit(<function>)``); the
  kernels inside it do not run one by one.
- Called while a gradient is recorded (``tp.grad(tp.jit(f))``) or inside another jitted
  function, ``f`` runs as it is (eagerly, or inlined into the outer trace), so gradients flow
  through it and never silently stop. Inside ``tp.vmap`` (``tp.vmap(tp.jit(f))``) too: ``f``
  runs op by op on vmap's batching backend, each op batched by its rule, and nothing is cached
  for it (a later call outside vmap compiles, or replays, as usual).

A compiled call takes the holders' state as ``state.carry_in`` lays it out (a holder's
tensors of one dtype packed into one buffer where the backend packs state and can join them)
and hands each holder whose state changed its new state (``state.written``).
"""

from __future__ import annotations

import functools
import itertools
import operator
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend, active_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import backend_var, jit_trace_var, profiling, recorders_var
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, StateError
from tensorplug.profiler import time_compiled
from tensorplug.transforms.autodiff.tape import taping
from tensorplug.transforms.jit.entries import Args, Compiled, Entry
from tensorplug.transforms.jit.state import StateLayout, carry_in, written
from tensorplug.transforms.jit.trace import Retrace, traced_function
from tensorplug.transforms.jit.trees import (
    HOST_DTYPES,
    TRACED,
    arrays_as_tensors,
    key_of,
    native,
    nonnegative,
    rebuild,
    static_key,
    unflatten_out,
    variables_in,
)

__all__ = ["jit", "tracing"]

_new_tensor = object.__new__
# (the call path's loops over holders, as C loops)
_deref: Callable[[Any], Any] = weakref.ref.__call__
_state_of = operator.methodcaller("jit_state")
_is = operator.is_


def tracing() -> bool:
    """Whether a tp.jit trace is in progress in this context (backends use it to keep
    constants made from host data concrete; an optimizer, to compose its update from ops
    rather than a fused kernel whose attributes would be compiled in)."""
    return jit_trace_var.get() is not None


# -- the jitted function -----------------------------------------------------------------------
class _Jitted:
    """``tp.jit(f)``'s state: per backend, per argument key, the state `f` touches and its
    compiled versions. ``call`` is what tp.jit returns."""

    def __init__(self, fn: Callable[..., Any], statics: tuple[int, ...]) -> None:
        self.fn = fn
        self.statics = statics
        self.negative_statics = any(i < 0 for i in statics)  # (positions counted from the end)
        # backend -> {argument key: Entry}, or None when the backend cannot compile
        self.per_backend: dict[Backend, dict[Any, Entry] | None] = {}
        self.call = functools.update_wrapper(self._call_path(), fn)

    def eager(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """`f` called as it is, its numpy-array arguments made tensors (as when compiled)."""
        statics = nonnegative(self.statics, len(args))
        args = tuple(a if i in statics else arrays_as_tensors(a) for i, a in enumerate(args))
        return self.fn(*args, **{k: arrays_as_tensors(v) for k, v in kwargs.items()})

    def _call_path(self) -> Callable[..., Any]:
        """The jitted function, run at every training step: find the entry of the arguments'
        key (shapes, dtypes, statics), run its compiled function on the arguments' arrays and
        the state holders' state, hand the holders their new state, wrap the results."""
        per_backend = self.per_backend
        timed_as = getattr(self.fn, "__name__", "function")

        def call(*args: Any, **kwargs: Any) -> Any:
            recorders = recorders_var.get()
            if jit_trace_var.get() is not None or (recorders and taping()):
                return self.eager(args, kwargs)  # inlined into the outer trace, or differentiated
            backend = backend_var.get() or active_backend()
            entries = per_backend.get(backend)
            if entries is None:
                # this backend cannot compile; or a tp.vmap level: f runs as it is, its ops batched
                # (nothing kept for the level, nor its arguments' values read)
                if backend in per_backend or backend.transform:
                    return self.eager(args, kwargs)
                entries = per_backend[backend] = {}
            dyn: list[Any] = []
            key = self._key(args, kwargs, dyn)
            try:
                entry = entries.get(key)
            except TypeError:
                raise ArgumentError("tp.jit: a static argument (static_argnums) must be hashable, such as "
                                    "an int, a str or a tuple of them; pass arrays as traced arguments "
                                    "instead") from None
            if entry is None:
                entry = entries[key] = self._new_entry(args, kwargs, entries)
            dyn_natives = dyn if entry.host else [native(x, backend) for x in dyn]
            if entry.dead:  # some state was garbage-collected: find it again
                entry = entries[key] = Entry(entry.template, entry.host)
            holders = list(map(_deref, entry.holders))
            states = list(map(_state_of, holders))
            left = entry.left_states
            if left is not None and all(map(_is, states, left)):  # as the last call left them
                compiled, state = entry.left_compiled, entry.left_arrays
            else:
                made = self._carried(entry, states, holders, backend)
                if made is None:  # the backend cannot compile
                    return self.eager(args, kwargs)
                compiled, state = made
            timed = timed_as if recorders and profiling[0] else None  # (a profile records: time it)
            try:
                if timed is None:
                    out_natives, new_state = compiled.fn(dyn_natives, state)
                else:
                    out_natives, new_state = time_compiled(timed, backend, compiled.fn, dyn_natives, state)
            except Retrace as retrace:  # the first trace met state: once more, with all of it
                redone = self._retraced(entry, retrace, dyn_natives, backend, timed)
                if redone is None:  # the backend cannot compile
                    return self.eager(args, kwargs)
                holders, states, compiled, state, out_natives, new_state = redone
            _write_back(entry, compiled, holders, states, state + new_state, backend)
            return _results(compiled, out_natives, backend)

        return call

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any], dyn: list[Any]) -> Any:
        """The key of a call's arguments (their tree structure, shapes, dtypes and statics); the
        traced leaves are appended to `dyn` in order."""
        given = self.statics
        if given:
            statics = nonnegative(given, len(args)) if self.negative_statics else given
            key: Any = tuple(static_key(a) if i in statics else key_of(a, dyn) for i, a in enumerate(args))
        else:
            parts = []
            for a in args:  # (key_of, inline for the common case: a batch)
                if a.__class__ is np.ndarray:
                    dyn.append(a)
                    parts.append(("n", a.shape, a.dtype))
                else:
                    parts.append(key_of(a, dyn))
            key = tuple(parts)
        if kwargs:
            key = (key, tuple((k, key_of(v, dyn)) for k, v in kwargs.items()))
        return key

    def _new_entry(self, args: tuple[Any, ...], kwargs: dict[str, Any], entries: dict[Any, Entry]) -> Entry:
        """The entry of a new argument key, given the state holders known before its first
        trace: the Variables among the arguments, and those `f` touched for other keys (so that
        new shapes, such as a smaller last batch, need no trace to find the state)."""
        host = not self.statics and not kwargs and all(
            a.__class__ is np.ndarray and a.dtype in HOST_DTYPES for a in args)
        entry = Entry(self._template(args, kwargs), host)
        known = {id(v): v for v in variables_in(entry.template)}
        for other in entries.values():
            for holder in map(_deref, other.holders):
                if holder is not None:
                    known.setdefault(id(holder), holder)
        for holder in known.values():
            entry.add(holder)
        return entry

    def _carried(self, entry: Entry, states: list[Any], holders: list[Any],
                 backend: Backend) -> tuple[Compiled, list[Any]] | None:
        """The compiled function for the holders' `states` and the state arrays it takes;
        None when the backend cannot compile."""
        layouts, state = carry_in(states, backend)
        last = entry.last
        if last is not None and last[0] == layouts:  # the state's layout did not change
            return last[1], state
        compiled = self._compiled(entry, holders, layouts, backend)
        return None if compiled is None else (compiled, state)

    def _retraced(self, entry: Entry, retrace: Retrace, dyn_natives: list[Any], backend: Backend,
                  timed: str | None) -> tuple[Any, ...] | None:
        """After the trace that found the state `f` touches (its compiled function is never
        used): the call with all of it, traced once more (None when the backend cannot
        compile; timed as `timed` while a profile records). State found again then is refused:
        there is no third trace."""
        entry.retraced(retrace.found)
        holders = list(map(_deref, entry.holders))
        states = list(map(_state_of, holders))
        made = self._carried(entry, states, holders, backend)
        if made is None:
            return None
        compiled, state = made
        try:
            if timed is not None:
                out_natives, new_state = time_compiled(timed, backend, compiled.fn, dyn_natives, state)
            else:
                out_natives, new_state = compiled.fn(dyn_natives, state)
        except Retrace as again:
            kinds = sorted({type(h).__name__ for h in again.found})
            raise StateError(
                f"tp.jit: {getattr(self.fn, '__name__', 'the function')} touched state ({', '.join(kinds)}) "
                "when traced with the state its first trace found that it had not touched then; it must "
                "read and write the same Variables and optimizers whatever their values (no Python "
                "branch on a state's value)"
            ) from None
        return holders, states, compiled, state, out_natives, new_state

    def _compiled(self, entry: Entry, holders: list[Any], layouts: tuple[StateLayout, ...],
                  backend: Backend) -> Compiled | None:
        """The entry's compiled function for these state layouts (compiled on first use,
        remembered as the last used); None when the backend cannot compile."""
        compiled = entry.compiled.get(layouts)
        if compiled is None:
            compiled = Compiled(layouts)
            fn = backend.compile(traced_function(self.fn, self.statics, entry.template, holders, compiled,
                                                  backend))
            if fn is None:
                self.per_backend[backend] = None
                return None
            compiled.fn = fn
            entry.compiled[layouts] = compiled
        entry.last = (layouts, compiled)
        return compiled

    def _template(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Args:
        """The arguments with their traced leaves replaced by TRACED (see Entry)."""
        statics = nonnegative(self.statics, len(args))
        traced = itertools.repeat(TRACED)
        return (tuple(a if i in statics else rebuild(a, traced) for i, a in enumerate(args)),
                {k: rebuild(v, traced) for k, v in kwargs.items()})


def _write_back(entry: Entry, compiled: Compiled, holders: list[Any], states: list[Any], arrays: list[Any],
                backend: Backend) -> None:
    """Hand each holder whose state the call changed its new state (`arrays`: the state the
    call took, then the state it gave), and keep what the next call needs to skip carrying it
    in again when it finds the states as this call left them."""
    for write in compiled.writes:
        new = written(write.layout, list(map(arrays.__getitem__, write.arrays)), backend)
        holders[write.holder].set_jit_state(new)
        states[write.holder] = new
    next_arrays = compiled.next_arrays
    if next_arrays is not None:
        entry.left_states, entry.left_compiled = states, compiled
        entry.left_arrays = list(map(arrays.__getitem__, next_arrays))
    else:
        entry.left_states = None


def _results(compiled: Compiled, out_natives: list[Any], backend: Backend) -> Any:
    """The call's results as `f` returned them: one tensor, or its tree of tensors."""
    single = compiled.single
    if single is not None:  # one tensor
        t = _new_tensor(Tensor)
        t._data, t._dtype, t._backend = out_natives[0], single, backend
        return t
    return unflatten_out(compiled.out_tree, iter(out_natives), backend)


def jit(f: Callable[..., Any] | None = None, *, static_argnums: int | Sequence[int] = ()) -> Any:
    """Compile `f` with the active backend (per backend, per argument shapes and dtypes, on
    first call); usable as a decorator with or without arguments. Backends that cannot compile
    run `f` eagerly. See the module docstring for arguments, state and results."""
    if isinstance(static_argnums, (list, tuple)):
        statics = tuple(valid.integer(n, "jit", "static_argnums") for n in static_argnums)
    else:
        statics = (valid.integer(static_argnums, "jit", "static_argnums"),)

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        return _Jitted(valid.function(fn, "jit"), statics).call

    return decorate if f is None else decorate(f)
