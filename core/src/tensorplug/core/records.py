"""``Record``: the base of the small immutable classes made at import (kernel specs, the
registries' configs, their registrations). A subclass names its fields in ``__slots__`` and
sets them once, in its own typed ``__init__``, through ``_set``; equality, hashing and the repr
go by those fields in that order, and assigning or deleting one afterwards raises
``dataclasses.FrozenInstanceError``, as on a ``@dataclass(frozen=True)``.

Why not that dataclass: it compiles six methods from generated source for every class, at
every import (~2 M instructions, ~0.35 ms, a class: ~10 ms of ``import tensorplug`` for the ~30
classes it made, issue 37), where these methods are compiled once, with this module, and cached
as bytecode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any

__all__ = ["Record"]

_setattr = object.__setattr__  # (past Record's own __setattr__, which refuses)


class Record:
    """Immutable fields named by the subclass's ``__slots__``, compared, hashed and shown in
    that order (a field holding a dict makes the record unhashable, as a frozen dataclass)."""

    __slots__: tuple[str, ...] = ()
    _get_fields: Callable[[Any], tuple[Any, ...]]  # (one C getter per class: as fast as generated code)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        getter = attrgetter(*cls.__slots__)
        one = len(cls.__slots__) == 1  # (then the getter gives the value alone)
        cls._get_fields = staticmethod((lambda record: (getter(record),)) if one else getter)

    def _set(self, **fields: Any) -> None:
        """Set the fields (in ``__init__`` only)."""
        for name, value in fields.items():
            _setattr(self, name, value)

    def _fields(self) -> tuple[Any, ...]:
        return self._get_fields(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{self.__class__.__qualname__}({shown})"

    def __getstate__(self) -> tuple[Any, ...]:  # (pickle and copy: the fields, set back by _set)
        return self._fields()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self._set(**dict(zip(self.__slots__, state, strict=True)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r} of {self.__class__.__qualname__}: "
                                  "it is immutable (make a new one)")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r} of {self.__class__.__qualname__}: "
                                  "it is immutable")
