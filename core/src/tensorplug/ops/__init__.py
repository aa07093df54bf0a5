"""tensorplug's public ops, one module per family. Ops added by plugins are reachable here
too, as ``tp.ops.<name>`` (looked up in the op registry on attribute access)."""

from __future__ import annotations

from typing import Any

from ..registry import ops as _op_registry
from ._convert import asarray, astype, to_backend
from .creation import *  # noqa: F403
from .creation import __all__ as _creation
from .elementwise import *  # noqa: F403
from .elementwise import __all__ as _elementwise

__all__ = ["asarray", "astype", "to_backend", *_creation, *_elementwise]

_op_registry._reserved.update(__all__)


def __getattr__(name: str) -> Any:
    from ..plugins.manager import load_plugins

    load_plugins()
    func = _op_registry.get_op(name)
    if func is None:
        raise AttributeError(
            f"tensorplug has no op '{name}'; plugin ops: {_op_registry.list_ops() or 'none'}. "
            "Install the plugin that provides it."
        )
    return func
