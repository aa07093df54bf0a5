"""The backend lifecycle: backends start lazily (their plugins loaded first, their kernels
registered as they start), by priority, and each thread has its active backend. Sits above the
plugin manager; the backend registry it starts from (``registry.backends``: BackendConfig,
register_backend...) and the Backend base class (``backends.contract``) are re-exported here."""

from __future__ import annotations

import contextlib
import difflib
import os
import warnings
from collections.abc import Iterator
from typing import Any

from tensorplug.backends.contract import Backend
from tensorplug.core import validate as valid
from tensorplug.core.context import backend_var, state
from tensorplug.core.runtime import current
from tensorplug.errors import BackendNotFoundError, PluginError, TensorplugError, TensorplugPluginWarning
from tensorplug.plugins.manager import load_plugins, register_backend_kernels
from tensorplug.plugins.problems import report_backend_failure
from tensorplug.registry.backends import BackendConfig, dispose_backend, register_backend, unregister_backend
from tensorplug.registry.generic_kernels import register_generic_kernels
from tensorplug.registry.kernels import kernels_for_backend

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
]

ENV_BACKEND = "TENSORPLUG_BACKEND"


def list_backends() -> list[str]:
    """Registered backend names, highest priority first."""
    load_plugins()
    return [c.name for c in sorted(current().backends.active.values(), key=lambda c: (-c.priority, c.name))]


def backend_info() -> list[dict[str, Any]]:
    """Name, priority, whether started and active, who registered each backend, and the dtypes
    it holds (a frozenset, or None where undeclared)."""
    load_plugins()
    runtime = current()
    active = state.backend.name if state.backend is not None else None
    out = []
    for name in list_backends():
        reg = runtime.backends.registration(name)
        config = runtime.backends.active[name]
        instance = runtime.instances.get(name)
        out.append({
            "name": name,
            "priority": config.priority,
            "started": instance is not None,
            "active": name == active,
            "source": reg.source if reg else None,
            "dtypes": config.dtypes if instance is None else instance.dtypes,
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
    load_plugins()  # (in strict mode, raises the plugin error met before, every time)
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
        if config.dtypes is not None:
            backend.dtypes = config.dtypes
        runtime.starting[name] = backend
        try:
            for config_k in kernels_for_backend(name):  # registered before the start
                if config_k.setup_func is not None:
                    config_k.setup_func(backend)
            register_backend_kernels(name)  # plugins register its kernels, set up as they come
            register_generic_kernels(name)  # the core's, for what it lacks (control flow)
        finally:
            del runtime.starting[name]
        runtime.instances[name] = backend
        return backend


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
