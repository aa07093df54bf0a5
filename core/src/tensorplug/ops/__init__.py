"""tensorplug's public ops, one module per family. Ops added by plugins are reachable here
too, as ``tp.ops.<name>`` (looked up in the op registry on attribute access). The ``nn`` and
``random`` families are public as the namespaces ``tp.nn`` and ``tp.random``."""

from __future__ import annotations

from typing import Any

from tensorplug.ops import (
    arithmetic,
    bitwise,
    creation,
    dlpack,
    elementwise,
    grids,
    indexing,
    linalg,
    manipulation,
    nd_indexing,
    reductions,
    segments,
    sets,
    sorting,
    structure,
)
from tensorplug.ops._convert import asarray, astype, to_backend
from tensorplug.ops.arithmetic import *  # noqa: F403
from tensorplug.ops.bitwise import *  # noqa: F403
from tensorplug.ops.creation import *  # noqa: F403
from tensorplug.ops.dlpack import *  # noqa: F403
from tensorplug.ops.elementwise import *  # noqa: F403
from tensorplug.ops.grids import *  # noqa: F403
from tensorplug.ops.indexing import *  # noqa: F403
from tensorplug.ops.indexing import getitem  # Tensor.__getitem__; tp.ops.getitem, not tp.getitem
from tensorplug.ops.linalg import *  # noqa: F403
from tensorplug.ops.manipulation import *  # noqa: F403
from tensorplug.ops.nd_indexing import *  # noqa: F403
from tensorplug.ops.reductions import *  # noqa: F403
from tensorplug.ops.segments import *  # noqa: F403
from tensorplug.ops.sets import *  # noqa: F403
from tensorplug.ops.sorting import *  # noqa: F403
from tensorplug.ops.structure import *  # noqa: F403
from tensorplug.registry import ops as _op_registry

# `+=` of each family's __all__ (not a computed list) lets type checkers see every op.
__all__ = ["asarray", "astype", "to_backend"]
__all__ += creation.__all__
__all__ += dlpack.__all__
__all__ += elementwise.__all__
__all__ += bitwise.__all__
__all__ += reductions.__all__
__all__ += manipulation.__all__
__all__ += linalg.__all__
__all__ += indexing.__all__
__all__ += sorting.__all__
__all__ += sets.__all__
__all__ += grids.__all__
__all__ += arithmetic.__all__
__all__ += structure.__all__
__all__ += nd_indexing.__all__
__all__ += segments.__all__

_op_registry._reserved.update(__all__, ["getitem"])


def __getattr__(name: str) -> Any:
    if name.startswith("_"):  # dunders and private names never trigger plugin discovery
        raise AttributeError(name)
    from tensorplug.plugins.manager import load_plugins

    load_plugins()
    func = _op_registry.get_op(name)
    if func is None:
        raise AttributeError(
            f"tensorplug has no op '{name}'; plugin ops: {_op_registry.list_ops() or 'none'}. "
            "Install the plugin that provides it."
        )
    return func
