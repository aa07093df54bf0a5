"""tensorplug's public ops, one module per family. Ops added by plugins are reachable here
too, as ``tp.ops.<name>`` (looked up in the op registry on attribute access). The ``nn`` and
``random`` families are public as the namespaces ``tp.nn`` and ``tp.random``."""

from __future__ import annotations

from typing import Any

from ..registry import ops as _op_registry
from . import (
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
from ._convert import asarray, astype, to_backend
from .arithmetic import *  # noqa: F403
from .bitwise import *  # noqa: F403
from .creation import *  # noqa: F403
from .dlpack import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .grids import *  # noqa: F403
from .indexing import *  # noqa: F403
from .indexing import getitem  # Tensor.__getitem__; tp.ops.getitem, not tp.getitem
from .linalg import *  # noqa: F403
from .manipulation import *  # noqa: F403
from .nd_indexing import *  # noqa: F403
from .reductions import *  # noqa: F403
from .segments import *  # noqa: F403
from .sets import *  # noqa: F403
from .sorting import *  # noqa: F403
from .structure import *  # noqa: F403

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
    from ..plugins.manager import load_plugins

    load_plugins()
    func = _op_registry.get_op(name)
    if func is None:
        raise AttributeError(
            f"tensorplug has no op '{name}'; plugin ops: {_op_registry.list_ops() or 'none'}. "
            "Install the plugin that provides it."
        )
    return func
