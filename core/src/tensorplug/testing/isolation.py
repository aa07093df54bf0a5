"""Registry isolation for tests: a runtime of the test's own (``tensorplug.core.runtime``), swapped in
for the block, so that nothing it registers, starts or loads outlives it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tensorplug.backends import lifecycle as _backend
from tensorplug.core.context import state
from tensorplug.core.runtime import Runtime, current, use_runtime
from tensorplug.errors import PluginError
from tensorplug.plugins.manager import load_plugins

__all__ = ["isolated_registries", "fresh_plugin_discovery"]


@contextlib.contextmanager
def _swapped(runtime: Runtime) -> Iterator[Runtime]:
    """Use `runtime` inside the block; on exit, dispose the backends started in it and give
    this thread its active backend back."""
    outer = current()
    active = state.backend
    with use_runtime(runtime):
        try:
            yield runtime
        finally:
            for name, backend in list(runtime.instances.items()):
                if outer.instances.get(name) is not backend:  # started (or restarted) inside
                    with contextlib.suppress(Exception):
                        _backend.dispose_backend(name)
    state.backend = active


@contextlib.contextmanager
def isolated_registries() -> Iterator[Runtime]:
    """A copy of the runtime (registries, plugins, started backends, default backend) in use
    inside the block: what the block registers, loads or starts is gone after it, and this
    thread's active backend is restored."""
    with contextlib.suppress(PluginError):  # (strict mode: the copy keeps the error, to raise)
        load_plugins()
    with _swapped(current().copy()) as runtime:
        yield runtime


@contextlib.contextmanager
def fresh_plugin_discovery() -> Iterator[Runtime]:
    """An isolated block in which tensorplug is as if no plugin had been loaded in this process:
    the registries hold only the core's entries, no backend is started, and the next backend
    use scans the entry points again (under the environment variables set by then). For tests
    of plugin discovery."""
    active = state.backend
    state.backend = None
    try:
        with _swapped(current().core_only()) as runtime:
            yield runtime
    finally:
        state.backend = active
