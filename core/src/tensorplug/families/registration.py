"""``register_core(runtime)``: the core's kernel specs, gradients, JVP rules, batching rules and
ONNX lowerings (what the family folders' modules declare when imported:
``registry/core_entries.py``) registered in a runtime, as the core's. ``Runtime()`` plus this one
call is a working runtime; ``import tensorplug`` makes its default runtime so, and registers
nothing else.

The specs' modules are imported with this one; the rules' modules (``gradients.py``,
``jvps.py``, ``batching.py``, ``onnx_*.py``: ~90 modules, which only grad, jvp, vmap and export
read) at the first read of a runtime's rule tables (``Runtime.load_rules``), or by
``load_core_rules``: issue 37, the import's cost."""

from __future__ import annotations

from typing import Any

from tensorplug.core.runtime import Runtime
from tensorplug.registry._slots import CORE_SOURCE, SlotTable
from tensorplug.registry.core_entries import CORE_ENTRIES
from tensorplug.registry.family_configs import family_names, import_families

__all__ = ["register_core", "load_core_rules"]

_FOLDERS = [f"tensorplug.families.{name}" for name, is_package in family_names("tensorplug.families").items()
            if is_package]


def _declares_rules(module: str) -> bool:
    """Whether a family folder's module (by name) declares rules: imported when they are read."""
    return module in ("gradients", "jvps", "batching") or module.startswith("onnx")


def _fill_core_rules(tables: dict[str, SlotTable[Any, Any]]) -> None:
    for folder in _FOLDERS:
        import_families(folder, _declares_rules)
    for attribute, table in tables.items():
        table.fill(CORE_ENTRIES[attribute], CORE_SOURCE)


# Every other module of every family folder, imported: they declare the specs (and the ops)
for _folder in _FOLDERS:
    import_families(_folder, lambda module: not _declares_rules(module))

# The core's entries in tables of their own, made once: a runtime shares them (copy on write)
_CORE = Runtime()
_SPECS: SlotTable[Any, Any] = _CORE.specs
_SPECS.fill(CORE_ENTRIES["specs"], CORE_SOURCE)
_CORE.load_rules(_fill_core_rules)


def _take_core_rules(tables: dict[str, SlotTable[Any, Any]]) -> None:
    for attribute, table in tables.items():
        table.take(getattr(_CORE, attribute))


def load_core_rules() -> None:
    """Import the modules that declare the core's rules (once): ``CORE_ENTRIES`` then holds
    them all. Reading a runtime's rule table does it first."""
    _CORE.tables()


def register_core(runtime: Runtime) -> Runtime:
    """Register the core's entries in `runtime` (beneath what plugins register over them) and
    return it: its specs now, its rules when its rule tables are first read. On a runtime with
    no registrations of these kinds yet this costs the same whatever their number: its tables
    share the core's until they change."""
    runtime.specs.take(_CORE.specs)
    runtime.load_rules(_take_core_rules)
    return runtime
