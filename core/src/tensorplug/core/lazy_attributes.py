"""Attributes of a public module loaded when first read (PEP 562, as numpy and scipy do), so
that ``import tensorplug`` does not load what only some programs use (``tp.nn``'s layers,
``tp.export``, ``tp.data``, ...; issue 37). The module also imports the same names under
``if TYPE_CHECKING:`` for type checkers; ``tests/test_lazy_imports.py`` holds the two together.
This is the one place that imports modules on demand (CONTRIBUTING.md, "The layout")."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(module: str, *, submodules: Mapping[str, str], attributes: Mapping[str, Sequence[str]],
                    ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for `module`: `submodules` maps an attribute to the module
    it is (``{"data": "tensorplug.data"}``), `attributes` a module to the names it gives
    (``{"tensorplug.models.layers.dense": ["Dense"]}``). A name is imported when first read and
    then kept on `module`, so later reads are plain attribute lookups."""
    where = {name: (source, False) for name, source in submodules.items()}
    where.update({name: (source, True) for source, names in attributes.items() for name in names})

    def __getattr__(name: str) -> Any:
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        source, is_attribute = found
        loaded = importlib.import_module(source)
        value = getattr(loaded, name) if is_attribute else loaded
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module]), *where})

    return __getattr__, __dir__
