"""tp.jit's bookkeeping: per argument key an ``Entry`` (the state holders the function touches,
its compiled versions per state layout, what the last call left) and a ``Compiled`` version
with its side data."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from tensorplug.core.records import Record
from tensorplug.transforms.jit.state import StateLayout

__all__ = ["Args", "Write", "Compiled", "Entry"]

Args = tuple[tuple[Any, ...], dict[str, Any]]  # positional and keyword arguments


def _uncompiled(*args: Any) -> Any:
    raise AssertionError("tp.jit: called before the backend compiled it")


class Write(Record):
    """A holder whose state a compiled call changes: its new layout, and for each of its
    buffers the array to take, as an index into the call's state arguments followed by its
    state results (a buffer the call did not change is the array it was given)."""

    __slots__ = ("holder", "layout", "arrays")
    holder: int
    layout: StateLayout
    arrays: tuple[int, ...]

    def __init__(self, holder: int, layout: StateLayout, arrays: tuple[int, ...]) -> None:
        self._set(holder=holder, layout=layout, arrays=arrays)


class Compiled:
    """One compiled function: per argument structure and state layouts. Its side data
    (result structure, which holders get new state) is filled when the backend traces it."""

    __slots__ = ("fn", "layouts", "out_tree", "single", "writes", "next_arrays")

    def __init__(self, layouts: tuple[StateLayout, ...]) -> None:
        self.fn: Callable[..., Any] = _uncompiled
        self.layouts = layouts  # per holder
        self.out_tree: Any = None
        self.single: Any = None  # the dtype of the result when it is one tensor
        self.writes: list[Write] = []
        # when every holder's state keeps its layout: the next call's state arguments, as
        # indices into this call's state arguments followed by its state results
        self.next_arrays: tuple[int, ...] | None = None


class Entry:
    """What tp.jit knows for one argument key: the state holders `f` touches (weakly), the
    compiled functions per state layouts, and what the last call left: each holder's state
    object and the next call's state arguments (valid while the holders still hold exactly
    those objects, which a step never changes in place)."""

    __slots__ = ("template", "holders", "compiled", "last", "dead", "host", "left_states",
                 "left_arrays", "left_compiled", "__weakref__")

    def __init__(self, template: Args, host: bool) -> None:
        # the arguments with their traced leaves as TRACED (what the traced function is called
        # with: every call of this key has the same static leaves and Variables)
        self.template = template
        self.host = host  # the arguments' traced leaves are all numpy arrays, passed as they are
        self.holders: list[weakref.ref[Any]] = []
        self.compiled: dict[tuple[StateLayout, ...], Compiled] = {}
        self.last: tuple[tuple[StateLayout, ...], Compiled] | None = None  # the last used, checked first
        self.dead = False  # a holder was garbage-collected: find the state again
        self.left_states: list[Any] | None = None
        self.left_arrays: list[Any] = []
        self.left_compiled: Any = None

    def retraced(self, found: list[Any]) -> None:
        """A trace met state holders it was not given (`found`): take them in, and compile again."""
        self.compiled.clear()
        self.last = None
        self.left_states = None
        for holder in found:
            self.add(holder)

    def add(self, holder: Any) -> None:
        entry = weakref.ref(self)

        def died(_: Any) -> None:
            alive = entry()
            if alive is not None:
                alive.dead = True

        self.holders.append(weakref.ref(holder, died))
