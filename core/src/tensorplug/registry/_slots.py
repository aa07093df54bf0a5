"""The registration rules shared by every registry: who registered what, conflicts, overrides.

A slot (e.g. ``("MatMul", "numpy")``) holds a stack of registrations ordered by priority; the
last one is active. Registering the identical config again is a no-op. A different config from
another source is an error naming both sources, whatever the priorities, unless it says
``override=True`` (then it is above the plain registrations of its priority, whichever came
first): replacing another source's entry needs ``override=True``, so the outcome never
depends on which plugin loads first. Two overrides of one slot at one priority by different
sources are an error too (a source's new override replaces its own); between overrides, the
higher priority wins. Removing the active one makes the one beneath it active again, which is
how unregistering a plugin restores the core default.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Generic, TypeVar

from tensorplug.core.records import Record
from tensorplug.errors import RegistrationConflictError, RegistrationError

CORE_SOURCE = "tensorplug-core"
USER_SOURCE = "user code"

_current_source: contextvars.ContextVar[str] = contextvars.ContextVar(
    "tensorplug_registration_source", default=USER_SOURCE
)
_seq = itertools.count()
# Versions are drawn from one counter for every table, so that a version names one state of one
# table: a cache keyed by a version stays right when another runtime's table takes over.
_versions = itertools.count(1)
#: The last version drawn: it changes whenever any registry of any runtime changes, and when
#: another runtime is swapped in, so one comparison tells a cache of what the registries say
#: (a dispatcher's binding, a tp.jit plan) that it may be out of date.
CHANGES = [0]


def new_version() -> int:
    version = CHANGES[0] = next(_versions)
    return version

C = TypeVar("C")
K = TypeVar("K", bound=Hashable)


def current_source() -> str:
    """Who registrations made now are attributed to: a plugin while its hooks run, else user."""
    return _current_source.get()


@contextlib.contextmanager
def registering_as(source: str) -> Iterator[None]:
    """Attribute registrations made inside the block to `source` (a plugin or the core)."""
    token = _current_source.set(source)
    try:
        yield
    finally:
        _current_source.reset(token)


class Registration(Record, Generic[C]):
    """One registration in a slot: the config and who made it."""

    __slots__ = ("config", "source", "priority", "override", "seq")
    config: C
    source: str
    priority: int
    override: bool
    seq: int

    def __init__(self, config: C, source: str, priority: int = 0, override: bool = False,
                 seq: int = 0) -> None:
        self._set(config=config, source=source, priority=priority, override=override, seq=seq)


class SlotTable(Generic[K, C]):
    """Slots keyed by a hashable key; `active` is the plain dict the hot path reads.

    A copy shares both dicts with its original until either changes (copy on write: a test's
    copy of the runtime costs the same whatever the registries hold); stacks are never changed
    in place, only replaced."""

    def __init__(self, what: str, describe: Callable[[K], str]) -> None:
        self.what = what
        self.describe = describe
        self.stacks: dict[K, list[Registration[C]]] = {}
        self.active: dict[K, C] = {}
        self.shared = False  # (the dicts are another table's too: copy them before a change)
        self.version = new_version()  # new on every change, so hot-path caches know when to refresh

    def _own(self) -> None:
        """Make the dicts this table's own before it changes them."""
        if self.shared:
            self.stacks = dict(self.stacks)
            self.active = dict(self.active)
            self.shared = False

    def add(
        self, key: K, config: C, *, source: str | None = None, priority: int = 0,
        override: bool = False,
    ) -> Registration[C]:
        source = source or current_source()
        stack = self.stacks.get(key, [])
        for reg in stack:
            if reg.config == config:
                return reg  # identical re-registration: a no-op
        # An override outranks the plain registrations of its priority whatever the order they
        # come in (plugins load in name order). Two plain registrations of different sources
        # clash at any priority (a priority alone never replaces another source's entry), and
        # so do a source's two different plain ones at one priority; an override clashes with
        # another source's override at its priority: two plugins replacing one default cannot
        # both win. A source's new override replaces its own at that priority.
        if override:
            level = [r for r in stack if r.override and r.priority == priority]
            rivals = [r for r in level if r.source != source]
            mine = [r for r in level if r.source == source]
        else:
            rivals = [r for r in stack if not r.override and (r.source != source or r.priority == priority)]
            mine = []
        if rivals:
            raise RegistrationConflictError(self._clash_message(key, rivals[-1], source, override))
        active = stack[-1] if stack else None
        stack = [r for r in stack if all(r is not m for m in mine)]
        reg = Registration(config, source, priority, override, next(_seq))
        stack.append(reg)
        stack.sort(key=lambda r: (r.priority, r.override, r.seq))
        if stack[-1] is reg and active is not None and active.source != source and not override:
            # (above another source's override, by priority alone)
            raise RegistrationConflictError(self._replace_message(key, active, source, priority))
        self._own()
        self.stacks[key] = stack
        self.active[key] = stack[-1].config
        self.version = new_version()
        return reg

    def _replace_message(self, key: K, other: Registration[C], source: str, priority: int) -> str:
        return (
            f"{self.describe(key)} is already registered by '{other.source}'; '{source}' registers "
            f"a different one at priority {priority} without override=True. Replacing another "
            f"source's registration needs override=True, whatever the priority: pass it if "
            f"'{source}' means to replace '{other.source}'s, or unregister '{other.source}' first."
        )

    def _clash_message(self, key: K, other: Registration[C], source: str, override: bool) -> str:
        if override:
            return (
                f"{self.describe(key)} is already overridden by '{other.source}'; '{source}' "
                f"overrides it too, at the same priority ({other.priority}). Give one of them a "
                f"higher priority (register(..., override=True, priority={other.priority + 1}); the "
                f"higher one is used), or unregister '{other.source}' first."
            )
        return (
            f"{self.describe(key)} is already registered by '{other.source}'; "
            f"'{source}' registers a different one. Pass override=True to replace it (a priority "
            f"alone does not), or unregister '{other.source}' first."
        )

    def remove(self, key: K, source: str | None = None) -> Registration[C]:
        """Remove the active registration of `key` (or the one made by `source`)."""
        stack = self.stacks.get(key)
        if not stack:
            raise RegistrationError(f"{self.describe(key)} is not registered; nothing to remove.")
        if source is None:
            reg = stack[-1]
        else:
            found = [r for r in stack if r.source == source]
            if not found:
                owners = ", ".join(repr(r.source) for r in stack)
                raise RegistrationError(
                    f"{self.describe(key)} has no registration by '{source}' (registered by "
                    f"{owners})."
                )
            reg = found[-1]
        self._own()
        self.stacks[key] = [r for r in stack if r is not reg]
        self._refresh(key)
        return reg

    def remove_source(self, source: str) -> list[K]:
        """Remove everything `source` registered; return the keys touched."""
        touched = []
        for key, stack in list(self.stacks.items()):
            kept = [r for r in stack if r.source != source]
            if len(kept) != len(stack):
                self._own()
                self.stacks[key] = kept
                self._refresh(key)
                touched.append(key)
        return touched

    def _refresh(self, key: K) -> None:
        self._own()
        self.version = new_version()
        stack = self.stacks.get(key)
        if stack:
            self.active[key] = stack[-1].config
        else:
            self.stacks.pop(key, None)
            self.active.pop(key, None)

    def fill(self, entries: Mapping[K, C], source: str) -> None:
        """Register each config of `entries` for `source` into this empty table in one go,
        without conflict checks: for the core's own entries (checked by its tests)."""
        if self.stacks:
            raise RegistrationError(f"fill() takes an empty table; this {self.what} table holds "
                                    f"{len(self.stacks)} entries. Register them one by one instead.")
        for key, config in entries.items():
            self.stacks[key] = [Registration(config, source, 0, False, next(_seq))]
            self.active[key] = config
        self.version = new_version()

    def take(self, other: SlotTable[K, C]) -> None:
        """Add every registration of `other`: shared with it (copy on write) if this table is
        empty, else one by one under the usual rules (identical ones are no-ops)."""
        if not self.stacks:
            self.stacks, self.active = other.stacks, other.active
            self.shared = other.shared = True
            self.version = new_version()
            return
        for key, stack in other.registrations():
            for reg in stack:
                self.add(key, reg.config, source=reg.source, priority=reg.priority, override=reg.override)

    def registration(self, key: K) -> Registration[C] | None:
        stack = self.stacks.get(key)
        return stack[-1] if stack else None

    def registrations(self) -> Iterator[tuple[K, list[Registration[C]]]]:
        return iter(list(self.stacks.items()))

    def copy(self, keep: Callable[[Registration[C]], bool] | None = None) -> SlotTable[K, C]:
        """A table of its own with the same registrations (those `keep` accepts, if given)."""
        table: SlotTable[K, C] = SlotTable(self.what, self.describe)
        if keep is None:  # (shared until one of the two changes)
            table.stacks, table.active = self.stacks, self.active
            table.shared = self.shared = True
            return table
        for key, stack in self.stacks.items():
            kept = [r for r in stack if keep is None or keep(r)]
            if kept:
                table.stacks[key] = kept
                table.active[key] = kept[-1].config
        return table
