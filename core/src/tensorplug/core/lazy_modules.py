"""Public submodules loaded when first used, so that ``import tensorplug`` does not run what
only some programs need (``tp.nn``'s layers, ``tp.export``, ``tp.data``, ...: issue 37). The
standard library's ``importlib.util.LazyLoader`` does it: the module object is in place at
import, and its code runs at the first read of one of its attributes, after which it is a
plain module. The package itself keeps no module ``__getattr__`` (PEP 562): one would stop
CPython from specializing every ``tp.add`` read (CONTRIBUTING.md, "Import time"). This is the
one place that imports modules on demand (CONTRIBUTING.md, "The layout")."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

__all__ = ["lazy_module"]


def lazy_module(name: str) -> ModuleType:
    """The module `name` (a module, not a package), put in ``sys.modules`` to be run when one of
    its attributes is first read (the module itself if it is imported already)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    if spec.submodule_search_locations is not None:
        # importing one of its modules first would read the package's __path__, which runs it
        # halfway through that import, and the module would be run twice (two of each class)
        raise ImportError(f"lazy_module({name!r}): {name} is a package, which cannot be loaded lazily "
                          "(its modules would be imported twice); import it, or make lazy a module "
                          "that gathers its names.", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
