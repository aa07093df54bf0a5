"""Registry isolation for tests: everything registered inside the block is undone after it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .. import backend as _backend
from .._state import state
from ..plugins import manager as _manager
from ..registry import gradients as _gradients
from ..registry import kernels as _kernels
from ..registry import ops as _ops
from ..registry import specs as _specs

__all__ = ["isolated_registries"]

_TABLES = (_specs.SPECS, _kernels.KERNELS, _gradients.GRADIENTS, _ops.OPS, _backend.BACKENDS)


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
        for name in list(_backend._instances):
            if name not in instances:
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
