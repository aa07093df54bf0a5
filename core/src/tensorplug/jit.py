"""``tp.jit``: compile a function with the active backend when it can; otherwise run eagerly.

A backend that compiles (jax, with ``jax.jit``) implements ``Backend.compile``; the numpy
backend does not, so ``tp.jit(f)`` runs ``f`` eagerly there: same results, no compilation.
On a compiling backend:

- **Arguments.** Tensors and numpy arrays anywhere in the arguments (nested lists, tuples and
  dicts) are traced: the compiled function is specialized to their shapes and dtypes and
  compiled again for new ones. Every other leaf (Python numbers, strings, None) and every
  argument named in ``static_argnums`` is a compile-time constant: it must be hashable, and a
  new value compiles again. A Variable passed as an argument is the Variable itself (state,
  below), as if ``f`` had closed over it. Every trace for one key (the backend may trace
  again on its own, e.g. after ``jax.clear_caches()``) runs ``f`` on the arguments of the key's
  first call, its traced leaves replaced by the call's traced values.
- **State.** ``f`` may read and assign Variables and step optimizers. While ``f`` is traced,
  they report what they touch (``_Trace.touch``); tp.jit then passes their current values into
  the compiled function at every call and stores the new values after it, so that no traced
  value escapes and the state moves exactly as eager calls would move it (an optimizer's step
  count goes in and out as state, and its per-step hyperparameters are computed inside the
  compiled step; learning-rate schedules run on the host, per call; a new learning rate or a
  step count set by hand applies at the next call; the rest of an optimizer's configuration,
  e.g. Adam's betas, is compiled in, and changing it compiles again). Finding the state costs
  one extra trace on the first call (per argument shapes).
- **Results** are tensors (nested in lists, tuples and dicts as ``f`` returned them);
  non-tensor leaves ``f`` returns are constants of the trace.
- Called while a gradient is recorded (``tp.grad(tp.jit(f))``) or inside another jitted
  function, ``f`` runs as it is (eagerly, or inlined into the outer trace), so gradients flow
  through it and never silently stop.

State holders (Variable, Optimizer) implement four methods. Per call, ``_jit_state(memo,
backend) -> (token, natives)`` gives the state to pass in (native arrays of `backend`, or numpy
arrays) and ``_jit_commit(token, natives, memo, backend)`` takes the new values. While `f` is
traced, ``_jit_bind(token, tensors) -> snapshot`` makes the holder use traced tensors (with
None, it only remembers its state: a holder found during the trace) and ``_jit_unbind(snapshot)
-> (written, memo)`` restores it and returns ``(token, new tensors)`` or None. `memo` is what
the holder learned in the trace (an optimizer: how many steps one call takes); it comes back
at each call.
"""

from __future__ import annotations

import functools
import itertools
import operator
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._jit_trees import (
    HOST_DTYPES,
    TRACED,
    arrays_as_tensors,
    flatten_out,
    key_of,
    native,
    nonnegative,
    rebuild,
    unflatten_out,
)
from ._state import backend_var, jit_trace_var, jit_tracing, recorders_var
from .autodiff.tape import Tape
from .backend import Backend, active_backend
from .engine import wrap
from .errors import TensorplugError
from .tensor import Tensor
from .variable import Variable

__all__ = ["jit", "tracing"]

_new_tensor = object.__new__
_MAX_TRACES = 8  # per call; the state a function touches is normally found in two
_ATTEMPTS = range(_MAX_TRACES)
_tracing_lock = threading.Lock()
_Args = tuple[tuple[Any, ...], dict[str, Any]]  # positional and keyword arguments
# (the call path's loops over holders, as C loops)
_deref: Callable[[Any], Any] = weakref.ref.__call__
_value_of = operator.attrgetter("_value")


def tracing() -> bool:
    """Whether a tp.jit trace is in progress in this context (backends use it to keep
    constants made from host data concrete)."""
    return jit_trace_var.get() is not None


class _Trace:
    """One run of ``f`` while a backend traces it: the holders bound to traced state, and the
    ones found touching state they were not given (snapshots to restore)."""

    __slots__ = ("backend", "bound", "found")

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.bound: set[int] = set()
        self.found: dict[int, tuple[Any, Any]] = {}

    def touch(self, holder: Any) -> None:
        key = id(holder)
        if key not in self.bound and key not in self.found:
            self.found[key] = (holder, holder._jit_bind(None, None))


class _Retrace(Exception):
    """Out of a trace that met state it was not given: trace again with it."""

    def __init__(self, found: list[tuple[Any, Any]], memos: dict[int, Any]) -> None:
        super().__init__("tp.jit: retrace")
        self.found = found
        self.memos = memos


def _uncompiled(*args: Any) -> Any:
    raise AssertionError("tp.jit: called before the backend compiled it")


class _Compiled:
    """One compiled function: per argument structure and state structure. Its side data
    (result structure, which holders to commit) is filled when the backend traces it."""

    __slots__ = ("fn", "tokens", "sizes", "out_tree", "single", "writes", "var_writes")

    def __init__(self, tokens: tuple[Any, ...], sizes: tuple[int, ...]) -> None:
        self.fn: Callable[..., Any] = _uncompiled
        self.tokens = tokens  # per holder, the Variables' (None) included
        self.sizes = sizes
        self.out_tree: Any = None
        self.single: Any = None  # the dtype of the result when it is one tensor
        # the holders to commit: plain Variables as (holder index, state index), the others as
        # (holder index, token, first state index, n leaves, memo)
        self.var_writes: list[tuple[int, int]] = []
        self.writes: list[tuple[int, Any, int, int, Any]] = []


class _Entry:
    """What tp.jit knows for one argument key: the state holders `f` touches (weakly) with
    their memos, and the compiled functions per state structure. Plain Variables come first
    (``n_vars`` of them): their state is one native each and needs no token."""

    __slots__ = ("template", "holders", "memos", "n_vars", "moved", "compiled", "last", "dead",
                 "host", "__weakref__")

    def __init__(self, template: _Args, host: bool) -> None:
        # the arguments with their traced leaves as TRACED (what the traced function is called
        # with: every call of this key has the same static leaves and Variables)
        self.template = template
        self.host = host  # the arguments' traced leaves are all numpy arrays, passed as they are
        self.holders: list[weakref.ref[Any]] = []
        self.memos: list[Any] = []
        self.n_vars = 0
        self.moved: bool | None = None  # a plain Variable lives on another backend (None: not known)
        self.compiled: dict[tuple[Any, ...], _Compiled] = {}
        self.last: tuple[tuple[Any, ...], _Compiled] | None = None  # the last used, checked first
        self.dead = False  # a holder was garbage-collected: find the state again

    def retraced(self, retrace: _Retrace) -> None:
        """A trace met state it was not given (or a holder's memo changed): take it in, and
        compile again."""
        self.compiled.clear()
        self.last = None
        for i, memo in retrace.memos.items():
            self.memos[i] = memo
        for holder, memo in retrace.found:
            self.add(holder, memo)

    def add(self, holder: Any, memo: Any) -> None:
        entry = weakref.ref(self)

        def died(_: Any) -> None:
            alive = entry()
            if alive is not None:
                alive.dead = True

        ref = weakref.ref(holder, died)
        self.moved = None
        if holder.__class__ is Variable:
            self.holders.insert(self.n_vars, ref)
            self.memos.insert(self.n_vars, memo)
            self.n_vars += 1
        else:
            self.holders.append(ref)
            self.memos.append(memo)


def _taping() -> bool:
    return any(isinstance(r, Tape) for r in recorders_var.get())


# -- the jitted function -----------------------------------------------------------------------
class _Jitted:
    """``tp.jit(f)``'s state: per backend, per argument key, the state `f` touches and its
    compiled versions. ``call`` is what tp.jit returns."""

    def __init__(self, fn: Callable[..., Any], statics: tuple[int, ...]) -> None:
        self.fn = fn
        self.statics = statics
        # backend -> {argument key: _Entry}, or None when the backend cannot compile
        self.per_backend: dict[Backend, dict[Any, _Entry] | None] = {}
        self.call = functools.update_wrapper(self._call_path(), fn)

    def eager(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """`f` called as it is, its numpy-array arguments made tensors (as when compiled)."""
        statics = nonnegative(self.statics, len(args))
        args = tuple(a if i in statics else arrays_as_tensors(a) for i, a in enumerate(args))
        return self.fn(*args, **{k: arrays_as_tensors(v) for k, v in kwargs.items()})

    def _call_path(self) -> Callable[..., Any]:
        """The jitted function. It runs at every training step, where each line of Python
        counts (more so right after the compiled computation, with cold caches): a plain
        function (cheaper to call than an object), its steady path first and inline."""
        per_backend = self.per_backend
        given_statics = self.statics
        negative_statics = any(i < 0 for i in given_statics)

        def call(*args: Any, **kwargs: Any) -> Any:
            if jit_trace_var.get() is not None or (recorders_var.get() and _taping()):
                return self.eager(args, kwargs)  # inlined into the outer trace, or differentiated
            backend = backend_var.get() or active_backend()
            entries = per_backend.get(backend)
            if entries is None:
                if backend in per_backend:  # this backend cannot compile
                    return self.eager(args, kwargs)
                entries = per_backend[backend] = {}
            dyn: list[Any] = []
            if given_statics:
                statics = nonnegative(given_statics, len(args)) if negative_statics else given_statics
                key: Any = tuple(("s", a) if i in statics else key_of(a, dyn) for i, a in enumerate(args))
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
            try:
                entry = entries.get(key)
            except TypeError:
                raise TypeError("tp.jit: a static argument (static_argnums) must be hashable") from None
            if entry is None:
                entry = entries[key] = self._new_entry(args, kwargs)
            dyn_natives = dyn if entry.host else [native(x, backend) for x in dyn]
            for _ in _ATTEMPTS:
                if entry.dead:  # some state was garbage-collected: find it again
                    entry = entries[key] = _Entry(entry.template, entry.host)
                holders = list(map(_deref, entry.holders))
                nv = entry.n_vars
                # plain Variables: their native value (one each); then the other holders' state
                moved = entry.moved
                if moved is None:  # (fixed while the holders are: a Variable never changes backend)
                    moved = entry.moved = any(h._backend is not backend for h in holders[:nv])
                if moved:  # a Variable lives on another backend: its value converted
                    leaves = [h._jit_state(None, backend)[1][0] for h in holders[:nv]]
                else:
                    leaves = list(map(_value_of, holders[:nv]))
                if len(holders) == nv + 1:  # (the common case: one optimizer)
                    token, state = holders[nv]._jit_state(entry.memos[nv], backend)
                    tokens_t: tuple[Any, ...] = (token,)
                    sizes: list[int] = [len(state)]
                    leaves += state
                elif nv < len(holders):
                    tokens: list[Any] = []
                    sizes = []
                    for h, memo in zip(holders[nv:], entry.memos[nv:]):
                        token, state = h._jit_state(memo, backend)
                        tokens.append(token)
                        sizes.append(len(state))
                        leaves += state
                    tokens_t = tuple(tokens)
                else:
                    tokens_t, sizes = (), []
                last = entry.last
                if last is not None and last[0] == tokens_t:  # the state's structure did not change
                    compiled = last[1]
                else:
                    made = self._compiled(entry, holders, tokens_t, sizes, backend)
                    if made is None:  # the backend cannot compile
                        return self.eager(args, kwargs)
                    compiled = made
                try:
                    out_natives, new_state = compiled.fn(dyn_natives, leaves)
                except _Retrace as retrace:
                    entry.retraced(retrace)
                    continue
                break
            else:
                raise TensorplugError(
                    f"tp.jit: tracing {getattr(self.fn, '__name__', 'the function')} did not settle "
                    f"on the state it reads and writes after {_MAX_TRACES} traces; does it touch "
                    "different Variables or optimizers every time it is traced?"
                )
            if moved:
                for index, at in compiled.var_writes:
                    holders[index]._jit_commit(None, new_state[at:at + 1], None, backend)
            else:
                for index, at in compiled.var_writes:
                    holders[index]._value = new_state[at]
            for index, token, start, count, memo in compiled.writes:
                holders[index]._jit_commit(token, new_state[start:start + count], memo, backend)
            single = compiled.single
            if single is not None:  # one tensor
                t = _new_tensor(Tensor)
                t._data, t._dtype, t._backend = out_natives[0], single, backend
                return t
            return unflatten_out(compiled.out_tree, iter(out_natives), backend)

        return call

    def _new_entry(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Entry:
        host = not self.statics and not kwargs and all(
            a.__class__ is np.ndarray and a.dtype in HOST_DTYPES for a in args)
        return _Entry(self._template(args, kwargs), host)

    def _compiled(self, entry: _Entry, holders: list[Any], tokens: tuple[Any, ...],
                  sizes: list[int], backend: Backend) -> _Compiled | None:
        """The entry's compiled function for this state structure (compiled on first use,
        remembered as the last used); None when the backend cannot compile."""
        compiled = entry.compiled.get(tokens)
        if compiled is None:
            nv = entry.n_vars
            compiled = _Compiled((None,) * nv + tokens, (1,) * nv + tuple(sizes))
            fn = backend.compile(self._pure(entry, holders, compiled, backend))
            if fn is None:
                self.per_backend[backend] = None
                return None
            compiled.fn = fn
            entry.compiled[tokens] = compiled
        entry.last = (tokens, compiled)
        return compiled

    def _template(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Args:
        """The arguments with their traced leaves replaced by TRACED (see _Entry)."""
        statics = nonnegative(self.statics, len(args))
        traced = itertools.repeat(TRACED)
        return (tuple(a if i in statics else rebuild(a, traced) for i, a in enumerate(args)),
                {k: rebuild(v, traced) for k, v in kwargs.items()})

    def _pure(self, entry: _Entry, holders: list[Any], compiled: _Compiled,
              backend: Backend) -> Callable[..., Any]:
        """The function the backend compiles: lists of natives in, lists of natives out; runs
        `f` on tensors wrapping the traced values, with the state holders bound."""
        fn = self.fn

        def pure(dyn_natives: list[Any], state_natives: list[Any]) -> tuple[list[Any], list[Any]]:
            args, kwargs = entry.template
            statics = nonnegative(self.statics, len(args))
            traced = iter([wrap(x, backend) for x in dyn_natives])
            args = tuple(a if i in statics else rebuild(a, traced) for i, a in enumerate(args))
            kwargs = {k: rebuild(v, traced) for k, v in kwargs.items()}
            trace = _Trace(backend)
            snapshots = []
            reset = jit_trace_var.set(trace)  # (binding may run ops: optimizers' hyperparameters)
            with _tracing_lock:  # read without the lock by Variables: only its zero-ness matters
                jit_tracing[0] += 1
            try:
                state = iter(state_natives)
                for h, token, size in zip(holders, compiled.tokens, compiled.sizes):
                    snapshots.append(h._jit_bind(token, [wrap(next(state), backend) for _ in range(size)]))
                    trace.bound.add(id(h))
                out = fn(*args, **kwargs)
                out_natives: list[Any] = []
                tree = compiled.out_tree = flatten_out(out, backend, out_natives)
                compiled.single = tree[1] if tree[0] == "t" else None
            finally:
                with _tracing_lock:
                    jit_tracing[0] -= 1
                jit_trace_var.reset(reset)
                results = [h._jit_unbind(s) for h, s in zip(holders, snapshots)]
                found = [(h, h._jit_unbind(s)[1]) for h, s in trace.found.values()]
            changed = {i: memo for i, (_, memo) in enumerate(results) if memo != entry.memos[i]}
            if found or changed:
                raise _Retrace(found, changed)
            new_state: list[Any] = []
            compiled.writes, compiled.var_writes = [], []
            for i, (written, memo) in enumerate(results):
                if written is not None:
                    token, leaves = written
                    if i < entry.n_vars:
                        compiled.var_writes.append((i, len(new_state)))
                    else:
                        compiled.writes.append((i, token, len(new_state), len(leaves), memo))
                    new_state.extend(t._data if t._backend is backend else backend.from_numpy(
                        np.asarray(t.numpy())) for t in leaves)
            return out_natives, new_state

        return pure


def jit(f: Callable[..., Any] | None = None, *, static_argnums: int | Sequence[int] = ()) -> Any:
    """Compile `f` with the active backend (per backend, per argument shapes and dtypes, on
    first call); usable as a decorator with or without arguments. Backends that cannot compile
    run `f` eagerly. See the module docstring for arguments, state and results."""
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        return _Jitted(fn, statics).call

    return decorate if f is None else decorate(f)

