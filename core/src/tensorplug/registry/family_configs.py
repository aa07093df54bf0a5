"""Packages laid out one kernel family per module (STYLE.md): a backend's kernels, the testing
kit's references. A family is every module of the package whose name does not start with
``_``, so a new family file needs no list to join. In a backend's kernels package each family
exposes ``KERNELS``, a dict kernel name -> the backend's entry for it; ``family_configs``
makes the backend's ``KernelConfig``s from them."""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tensorplug.errors import RegistrationError
from tensorplug.registry.kernel_config import KernelConfig

__all__ = ["family_configs", "import_families", "family_names"]

MakeConfig = Callable[[str, str, Any], KernelConfig]  # (kernel name, backend name, entry)


def family_configs(package: str, make: MakeConfig) -> Callable[[str], list[KernelConfig]]:
    """``all_kernels(backend_name)`` for the kernel families of `package` (imported on the
    first call, in name order): ``make(kernel name, backend_name, entry)`` for every entry of
    every family's ``KERNELS``. The configs are made once per backend name, and each call
    returns the very same objects, so that a plugin registering them again (its backend
    disposed and started anew) repeats, not replaces, them."""

    @functools.cache
    def configs(backend_name: str) -> tuple[KernelConfig, ...]:
        return tuple(make(name, backend_name, entry) for name, entry in _entries(package))

    def all_kernels(backend_name: str) -> list[KernelConfig]:
        return list(configs(backend_name))

    all_kernels.__doc__ = f"The kernel configs of the families in {package} for `backend_name`."
    return all_kernels


def _entries(package: str) -> list[tuple[str, Any]]:
    """(kernel name, entry) of every family module of `package`; a family without a KERNELS
    dict, or two families with one kernel, are a RegistrationError naming them."""
    found: dict[str, str] = {}
    entries = []
    for family in import_families(package):
        module = family.__name__
        kernels = getattr(family, "KERNELS", None)
        if not isinstance(kernels, dict):
            raise RegistrationError(f"{module}: a kernel family module must define KERNELS, a dict kernel "
                                    "name -> kernel; name the module with a leading '_' if it is a helper.")
        for name, entry in kernels.items():
            if name in found:
                raise RegistrationError(f"Kernel '{name}' is in two families of {package}: {found[name]} "
                                        f"and {module}; keep it in one.")
            found[name] = module
            entries.append((name, entry))
    return entries


def family_names(package: str) -> dict[str, bool]:
    """The families of `package` in name order: its modules (``.py`` files) and packages (folders
    with an ``__init__.py``) whose name does not start with ``_``, each with whether it is a
    package. (One ``os.scandir`` a folder: ``pkgutil.iter_modules`` also lists every folder in
    it, ``__pycache__`` too, which cost ~4 ms of ``import tensorplug``'s 26 family folders.)"""
    found = {}
    for folder in importlib.import_module(package).__path__:
        for entry in os.scandir(folder):
            if entry.name.startswith("_"):
                continue  # (a helper, __pycache__)
            if entry.name.endswith(".py"):
                found[entry.name[:-3]] = False
            elif entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                found[entry.name] = True
    return dict(sorted(found.items()))


def import_families(package: str, which: Callable[[str], bool] | None = None) -> list[ModuleType]:
    """Import every family module of `package` (name order), or those whose name `which`
    accepts; return them."""
    return [importlib.import_module(f"{package}.{name}")
            for name in family_names(package) if which is None or which(name)]
