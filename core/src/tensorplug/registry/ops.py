"""The op registry: public ops added by plugins, reachable as ``tp.ops.<name>``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.core.records import Record
from tensorplug.core.runtime import current
from tensorplug.errors import RegistrationError
from tensorplug.registry._slots import Registration

__all__ = ["OpConfig", "register_op", "unregister_op", "get_op", "list_ops"]


class OpConfig(Record):
    """A public op a plugin adds: its name (a Python identifier) and the function."""

    __slots__ = ("name", "func")
    name: str
    func: Callable[..., Any]

    def __init__(self, name: str, func: Callable[..., Any]) -> None:
        self._set(name=name, func=func)


_reserved: set[str] = set()  # the core's own op names, filled by tensorplug.ops


def register_op(config: OpConfig, *, override: bool = False, priority: int = 0) -> Registration[OpConfig]:
    """Add `config.func` as ``tp.ops.<name>``; RegistrationError for a core op's name, a
    non-identifier or a taken name without ``override=True``."""
    if not isinstance(config, OpConfig):
        raise RegistrationError(f"register_op takes an OpConfig, got {type(config).__name__}")
    if not config.name.isidentifier() or config.name.startswith("_"):
        raise RegistrationError(f"op name {config.name!r} must be a public Python identifier")
    if config.name in _reserved:
        raise RegistrationError(
            f"Op '{config.name}' is a core op; a plugin cannot replace it. Override its kernel or "
            "gradient instead, or choose another name."
        )
    if not callable(config.func):
        raise RegistrationError(f"Op '{config.name}': func must be callable")
    return current().ops.add(config.name, config, override=override, priority=priority)


def unregister_op(name: str, source: str | None = None) -> None:
    """Remove the active op `name` (or `source`'s); the one beneath becomes active."""
    current().ops.remove(name, source)


def get_op(name: str) -> Callable[..., Any] | None:
    """The function registered as op `name`, or None."""
    config = current().ops.active.get(name)
    return None if config is None else config.func


def list_ops() -> list[str]:
    """Names of every registered plugin op, sorted."""
    return sorted(current().ops.active)
