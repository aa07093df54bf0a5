"""Public submodules loaded when first used, so that ``import tensorplug`` does not run what
only some programs need (``tp.nn``'s layers, ``tp.export``, ``tp.data``, ...: issue 37). The
module object is in place at import, and its code runs at the first read of one of its
attributes, after which it is a plain module: ``importlib.util.LazyLoader``'s design, with the
lock CPython 3.13 added to it (gh-114763; before it, a second thread reading the module while
the first one runs it sees it half run). The package itself keeps no module ``__getattr__``
(PEP 562): one would stop CPython from specializing every ``tp.add`` read (CONTRIBUTING.md,
"Import time"). This is the one place that imports modules on demand (CONTRIBUTING.md, "The
layout")."""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["lazy_module"]


class _LazyModule(ModuleType):
    """A module not run yet: the first attribute read runs it (other threads wait for it; the
    running thread's own reads go to the module as it is so far), then it is a ModuleType."""

    def __getattribute__(self, attr: str) -> Any:
        spec = object.__getattribute__(self, "__spec__")
        state = spec.loader_state
        with state["lock"]:
            if object.__getattribute__(self, "__class__") is _LazyModule:
                if state["running"]:  # (a read by the code running it)
                    return ModuleType.__getattribute__(self, attr)
                state["running"] = True
                try:
                    spec.loader.exec_module(self)
                finally:
                    self.__class__ = ModuleType  # type: ignore[assignment]
        return getattr(self, attr)


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
    spec.loader_state = {"lock": threading.RLock(), "running": False}
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _LazyModule
    sys.modules[name] = module
    return module
