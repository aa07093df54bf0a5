"""mkdocs hook: a line ``[[api tensorplug.nn]]`` in a page becomes that module's reference,
generated from its ``__all__``: the module's docstring, then one mkdocstrings block per class
or function (at the path where it is defined, so that a name shadowed by a submodule, as
``tp.jit`` is, still finds its object), then the other names with their values. A module
public as another's attribute is named by that path (``[[api tensorplug.nn.initializers]]``)."""

from __future__ import annotations

import importlib
import inspect
import re
import types
from typing import Any

PLACEHOLDER = re.compile(r"^\[\[api ([\w.]+)\]\]$", re.MULTILINE)


def reference(module_name: str) -> str:
    """The markdown of one module's reference."""
    parent, _, attribute = module_name.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:  # a module public as an attribute (tensorplug.nn.initializers)
        module = getattr(importlib.import_module(parent), attribute)
    parts = [inspect.getdoc(module) or ""]
    values = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            values.append(f"- `{name}`: the module `{obj.__name__}`")
        elif (inspect.isclass(obj) or inspect.isfunction(obj)) and not isinstance(obj, types.GenericAlias):
            parts.append(f"::: {obj.__module__}.{obj.__qualname__}\n"
                         f"    options:\n      heading: {module_name}.{name}")
        else:
            values.append(f"- `{name}` = `{obj!r}`")
    if values:
        parts.append("## Other names\n\n" + "\n".join(values))
    return "\n\n".join(parts) + "\n"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return PLACEHOLDER.sub(lambda m: reference(m.group(1)), markdown)
