"""Packages laid out one kernel family per module (STYLE.md): the core's specs, gradients, JVP
rules, batching rules and the kit's references, and a backend's kernels. A family is every
module of the package whose name does not start with ``_``; importing it declares its entries
(the core's go to ``registry/core_entries.py``), so a new family file needs no list to join."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["import_families"]


def import_families(package: str) -> list[ModuleType]:
    """Import every family module of `package` (name order); return them."""
    found = pkgutil.iter_modules(importlib.import_module(package).__path__)
    return [importlib.import_module(f"{package}.{info.name}")
            for info in sorted(found, key=lambda info: info.name) if not info.name.startswith("_")]
