"""The backend registry: ``BackendConfig`` by name, registered and unregistered (a started
instance of a backend that is unregistered is disposed: ``dispose_backend``).

Plain data, below the plugin manager, which fills it from the ``tensorplug_backends`` hook;
starting a backend (which loads the plugins first) is ``tensorplug.backends.lifecycle``, above
the manager, which re-exports all of this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tensorplug.backends.contract import Backend
from tensorplug.backends.held_dtypes import declared_dtypes
from tensorplug.core.context import state
from tensorplug.core.records import Record
from tensorplug.core.runtime import current
from tensorplug.dtypes import DType
from tensorplug.registry.kernels import kernels_for_backend

__all__ = ["BackendConfig", "register_backend", "unregister_backend", "dispose_backend"]


class BackendConfig(Record):
    """A backend: its name, a zero-argument factory creating it on first use, a priority
    (the highest-priority backend that starts is the default) and, optionally, the dtypes it
    can hold (``dtypes``: any iterable of tensorplug dtypes, kept as a frozenset; None:
    undeclared). The started backend carries them as ``Backend.dtypes``."""

    __slots__ = ("name", "factory", "priority", "dtypes")
    name: str
    factory: Callable[[], Backend]
    priority: int
    dtypes: frozenset[DType] | None

    def __init__(self, name: str, factory: Callable[[], Backend], priority: int = 0, *,
                 dtypes: Iterable[DType] | None = None) -> None:
        self._set(name=name, factory=factory, priority=priority,
                  dtypes=declared_dtypes(dtypes, f"BackendConfig '{name}'"))


def register_backend(config: BackendConfig, *, override: bool = False, priority: int | None = None) -> None:
    """Make `config` available under ``config.name``; TypeError if it is not a BackendConfig, and
    RegistrationError if the name is taken by another source without ``override=True``."""
    if not isinstance(config, BackendConfig):
        raise TypeError(f"register_backend takes a BackendConfig, got {type(config).__name__}")
    current().backends.add(config.name, config, override=override,
                           priority=config.priority if priority is None else priority)


def unregister_backend(name: str, source: str | None = None) -> None:
    """Remove a backend's registration; a started instance is disposed."""
    runtime = current()
    before = runtime.backends.active.get(name)
    runtime.backends.remove(name, source)
    if runtime.backends.active.get(name) is not before:  # the instance may come from the removed config
        dispose_backend(name)
    if name not in runtime.backends.active and runtime.default_backend == name:
        runtime.default_backend = None


def dispose_backend(name: str) -> None:
    """Stop a started backend: dispose its kernels and the instance. It restarts on next use."""
    backend = current().instances.pop(name, None)
    if backend is None:
        return
    for config in kernels_for_backend(name):
        if config.dispose_func is not None:
            config.dispose_func(backend)
    backend.dispose()
    if state.backend is backend:
        state.backend = None
