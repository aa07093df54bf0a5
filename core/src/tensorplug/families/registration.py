"""``register_core(runtime)``: the core's kernel specs, gradients, JVP rules and batching rules
(what the family folders' modules declare when imported: ``registry/core_entries.py``) registered in
a runtime, as the core's. ``Runtime()`` plus this one call is a working runtime; ``import
tensorplug`` makes its default runtime so, and registers nothing else."""

from __future__ import annotations

import pkgutil

from tensorplug import families
from tensorplug.core.runtime import Runtime
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.registry.core_entries import CORE_ENTRIES
from tensorplug.registry.family_configs import import_families

__all__ = ["register_core"]

# Every module of every family folder (``families/<family>/``), imported: they declare the entries
for _folder in sorted(pkgutil.iter_modules(families.__path__), key=lambda info: info.name):
    if _folder.ispkg and not _folder.name.startswith("_"):
        import_families(f"{families.__name__}.{_folder.name}")

# The core's entries in tables of their own, made once: a runtime shares them (copy on write)
_CORE = Runtime()
for _attribute, _entries in CORE_ENTRIES.items():
    getattr(_CORE, _attribute).fill(_entries, CORE_SOURCE)


def register_core(runtime: Runtime) -> Runtime:
    """Register the core's entries in `runtime` (beneath what plugins register over them) and
    return it. On a runtime with no registrations of these kinds yet this costs the same
    whatever their number: its tables share the core's until they change."""
    for attribute in CORE_ENTRIES:
        getattr(runtime, attribute).take(getattr(_CORE, attribute))
    return runtime
