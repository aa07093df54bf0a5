"""Registry isolation for tests: everything registered inside the block is undone after it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .. import backend as _backend
from .._state import state
from ..plugins import manager as _manager
from ..registry import gradients as _gradients
from ..registry import kernels as _kernels
from ..registry import ops as _ops
from ..registry import specs as _specs
from ..registry._slots import CORE_SOURCE, SlotTable

__all__ = ["isolated_registries", "fresh_plugin_discovery"]

_TABLES: tuple[SlotTable[Any, Any], ...] = (
    _specs.SPECS, _kernels.KERNELS, _gradients.GRADIENTS, _ops.OPS, _backend.BACKENDS)


@contextlib.contextmanager
def isolated_registries() -> Iterator[None]:
    """Snapshot the spec, kernel, gradient, op and backend registries, the plugin manager,
    the started backends and this thread's active backend; restore them all on exit.

    Backends started inside the block are disposed on exit; plugins registered inside it are
    forgotten (their pluggy registration too)."""
    _manager.load_plugins()
    snaps = [t.snapshot() for t in _TABLES]
    instances = dict(_backend._instances)
    default_name = _backend._default_name
    active = state.backend
    plugins = dict(_manager._state.plugins)
    problems = list(_manager._state.problems)
    pm_names = {name for name, _ in _manager._state.pm.list_name_plugin()}
    plugin_active = {name: info.active for name, info in plugins.items()}
    try:
        yield
    finally:
        for name, backend in list(_backend._instances.items()):
            if instances.get(name) is not backend:  # started (or restarted) inside the block
                with contextlib.suppress(Exception):
                    _backend.dispose_backend(name)
        for table, snap in zip(_TABLES, snaps):
            table.restore(snap)
        _backend._instances.clear()
        _backend._instances.update(instances)
        _backend._default_name = default_name
        state.backend = active
        for name, _plugin in list(_manager._state.pm.list_name_plugin()):
            if name not in pm_names:
                _manager._state.pm.unregister(name=name)
        for name in pm_names:
            if not _manager._state.pm.has_plugin(name) and name in plugins:
                _manager._state.pm.register(plugins[name].module, name=name)
        _manager._state.plugins.clear()
        _manager._state.plugins.update(plugins)
        for name, info in plugins.items():
            info.active = plugin_active[name]
        _manager._state.problems[:] = problems


@contextlib.contextmanager
def fresh_plugin_discovery() -> Iterator[None]:
    """An isolated block in which tensorplug is as if no plugin had been loaded in this process:
    the registries hold only the core's entries, no backend is started, and the next backend
    use scans the entry points again (under the environment variables set by then). For tests
    of plugin discovery; everything is restored on exit."""
    with isolated_registries():
        saved = _manager._state
        for name in list(_backend._instances):
            with contextlib.suppress(Exception):
                _backend.dispose_backend(name)
        for table in _TABLES:
            stacks = {k: [r for r in v if r.source == CORE_SOURCE] for k, v in table.stacks.items()}
            stacks = {k: v for k, v in stacks.items() if v}
            table.restore((stacks, {k: v[-1].config for k, v in stacks.items()}))
        _manager._state = _manager._State()
        _backend._default_name = None
        state.backend = None
        try:
            yield
        finally:
            for name in list(_backend._instances):
                with contextlib.suppress(Exception):
                    _backend.dispose_backend(name)
            _manager._state = saved
