"""Backends: BackendConfig and the backend registry with lazy start, priorities and the
per-thread active backend; the Backend base class (``backends/contract.py``) is re-exported here."""

from __future__ import annotations

import contextlib
import difflib
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tensorplug.backends.contract import Backend
from tensorplug.core import validate as valid
from tensorplug.core.context import backend_var, state
from tensorplug.core.runtime import current
from tensorplug.errors import BackendNotFoundError, PluginError, TensorplugError, TensorplugPluginWarning
from tensorplug.registry import kernels as _kernels

__all__ = [
    "Backend",
    "BackendConfig",
    "register_backend",
    "unregister_backend",
    "list_backends",
    "backend_info",
    "get_backend",
    "set_backend",
    "set_default_backend",
    "backend_scope",
    "start_backend",
    "active_backend",
    "dispose_backend",
    "kernel_changed",
]

ENV_BACKEND = "TENSORPLUG_BACKEND"


@dataclass(frozen=True)
class BackendConfig:
    """A backend: its name, a zero-argument factory creating it on first use, a priority
    (the highest-priority backend that starts is the default)."""

    name: str
    factory: Callable[[], Backend]
    priority: int = 0


def _discover() -> None:
    from tensorplug.plugins.manager import load_plugins  # (plugin loading sits above the backends)

    load_plugins()  # (in strict mode, raises the plugin error met before, every time)


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


def list_backends() -> list[str]:
    """Registered backend names, highest priority first."""
    _discover()
    return [c.name for c in sorted(current().backends.active.values(), key=lambda c: (-c.priority, c.name))]


def backend_info() -> list[dict[str, Any]]:
    """Name, priority, whether started and active, and who registered each backend."""
    _discover()
    runtime = current()
    active = state.backend.name if state.backend is not None else None
    out = []
    for name in list_backends():
        reg = runtime.backends.registration(name)
        out.append({
            "name": name,
            "priority": runtime.backends.active[name].priority,
            "started": name in runtime.instances,
            "active": name == active,
            "source": reg.source if reg else None,
        })
    return out


def _not_found(name: str) -> BackendNotFoundError:
    known = list_backends()
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return BackendNotFoundError(
        f"No backend named '{name}'; registered backends: {known or 'none'}.{hint} Install its "
        f"distribution (e.g. pip install tensorplug-backend-{name}, where one of that name "
        "exists) or check the name."
        + (" Plugin autoload is disabled (TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD)."
           if os.environ.get("TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD") else "")
    )


def start_backend(name: str) -> Backend:
    """The started instance of backend `name` (created, and its kernels registered, on first use)."""
    runtime = current()
    if name.__class__ is not str:
        valid.backend_name(name, "start_backend", "name")
    backend = runtime.instances.get(name)
    if backend is not None:
        return backend
    _discover()
    with runtime.start_lock:
        # (runtime.starting: re-entered from a hook while the backend starts)
        backend = runtime.instances.get(name) or runtime.starting.get(name)
        if backend is not None:
            return backend
        config = runtime.backends.active.get(name)
        if config is None:
            raise _not_found(name)
        try:
            backend = config.factory()
        except TensorplugError:
            raise
        except Exception as exc:
            from tensorplug.plugins.manager import report_backend_failure

            report_backend_failure(name, exc)  # strict mode: a PluginError, now and at every use
            raise TensorplugError(
                f"Backend '{name}' failed to start: {type(exc).__name__}: {exc}. Check that its "
                "distribution and dependencies are installed, or choose another with "
                "tp.set_backend(...)."
            ) from exc
        if not isinstance(backend, Backend):
            raise TensorplugError(
                f"Backend '{name}': its factory returned {type(backend).__name__}, not a "
                "tensorplug Backend subclass."
            )
        backend.name = name
        runtime.starting[name] = backend
        try:
            for config_k in _kernels.kernels_for_backend(name):  # registered before the start
                if config_k.setup_func is not None:
                    config_k.setup_func(backend)
            from tensorplug.plugins.manager import register_backend_kernels

            register_backend_kernels(name)  # plugins register its kernels, set up as they come
        finally:
            del runtime.starting[name]
        runtime.instances[name] = backend
        return backend


def kernel_changed(config: _kernels.KernelConfig, event: str) -> None:
    """A kernel became active ("setup") or stopped being active ("dispose") in its slot: run its
    setup or dispose function if its backend is started (or starting)."""
    runtime = current()
    backend = runtime.instances.get(config.backend_name) or runtime.starting.get(config.backend_name)
    if backend is None:
        return
    func = config.setup_func if event == "setup" else config.dispose_func
    if func is not None:
        func(backend)


def dispose_backend(name: str) -> None:
    """Stop a started backend: dispose its kernels and the instance. It restarts on next use."""
    backend = current().instances.pop(name, None)
    if backend is None:
        return
    for config in _kernels.kernels_for_backend(name):
        if config.dispose_func is not None:
            config.dispose_func(backend)
    backend.dispose()
    if state.backend is backend:
        state.backend = None


def _default_backend() -> Backend:
    runtime = current()
    if runtime.default_backend is not None:
        return start_backend(runtime.default_backend)
    wanted = os.environ.get(ENV_BACKEND)
    if wanted:
        runtime.default_backend = wanted
        return start_backend(wanted)
    names = list_backends()
    if not names:
        raise BackendNotFoundError(
            "No tensorplug backend is installed. Install one, e.g. "
            "`pip install tensorplug-backend-numpy`, or register one by hand with "
            "tensorplug.extend.register_backend(BackendConfig(...))."
            + (" Plugin autoload is disabled (TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD)."
               if os.environ.get("TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD") else "")
        )
    errors = []
    for name in names:
        try:
            backend = start_backend(name)
        except PluginError:
            raise  # strict mode: a plugin problem is an error, not a reason to try another backend
        except TensorplugError as exc:
            errors.append(f"{name}: {exc}")
            warnings.warn(f"tensorplug: backend '{name}' could not start, trying the next: {exc}",
                          TensorplugPluginWarning, stacklevel=3)
            continue
        runtime.default_backend = name
        return backend
    raise BackendNotFoundError("No backend could start: " + "; ".join(errors))


def active_backend() -> Backend:
    """The active backend of this thread (its default on first use)."""
    backend = backend_var.get()
    if backend is None:
        backend = _default_backend()
        backend_var.set(backend)
    return backend


def get_backend() -> str:
    """The name of this thread's active backend."""
    return active_backend().name


def set_backend(name: str) -> Backend:
    """Make `name` the active backend of the calling thread (other threads keep theirs)."""
    backend = start_backend(valid.backend_name(name, "set_backend", "name"))
    state.backend = backend
    return backend


def set_default_backend(name: str | None) -> None:
    """The backend that threads use until they call set_backend (None: back to priorities)."""
    if name is not None:
        start_backend(valid.backend_name(name, "set_default_backend", "name"))
    current().default_backend = name


@contextlib.contextmanager
def backend_scope(name: str) -> Iterator[Backend]:
    """Make `name` the active backend of this thread inside the block."""
    previous = state.backend
    backend = start_backend(valid.backend_name(name, "backend_scope", "name"))
    state.backend = backend
    try:
        yield backend
    finally:
        state.backend = previous
