"""``tp.ops``: tensorplug's public ops, gathered: each kernel family's (``families/<family>/ops.py``)
and those in this package, which belong to no one family (written with the families' ops, or,
as ``tensor_methods``, Tensor's methods that are ops). Ops added by plugins are reachable here
too, as ``tp.ops.<name>`` (looked up in the op registry on attribute access). The ``nn`` and
``random`` families are public as the namespaces ``tp.nn`` and ``tp.random``."""

from __future__ import annotations

from typing import Any

from tensorplug.families._common.convert import asarray, astype, to_backend
from tensorplug.families.activations import arithmetic
from tensorplug.families.activations.arithmetic import *  # noqa: F403
from tensorplug.families.control_flow import ops as control_flow
from tensorplug.families.control_flow.ops import *  # noqa: F403
from tensorplug.families.creation import ops as creation
from tensorplug.families.creation.ops import *  # noqa: F403
from tensorplug.families.elementwise import bitwise
from tensorplug.families.elementwise import ops as elementwise
from tensorplug.families.elementwise.bitwise import *  # noqa: F403
from tensorplug.families.elementwise.ops import *  # noqa: F403
from tensorplug.families.indexing import ops as indexing
from tensorplug.families.indexing.ops import *  # noqa: F403
from tensorplug.families.indexing.ops import getitem  # Tensor.__getitem__; tp.ops.getitem, not tp.getitem
from tensorplug.families.linalg import ops as linalg
from tensorplug.families.linalg.ops import *  # noqa: F403
from tensorplug.families.manipulation import ops as manipulation
from tensorplug.families.manipulation.ops import *  # noqa: F403
from tensorplug.families.reductions import ops as reductions
from tensorplug.families.reductions.ops import *  # noqa: F403
from tensorplug.families.scatter_nd import ops as nd_indexing
from tensorplug.families.scatter_nd.ops import *  # noqa: F403
from tensorplug.families.segments import ops as segments
from tensorplug.families.segments.ops import *  # noqa: F403
from tensorplug.families.sorting import ops as sorting
from tensorplug.families.sorting import sets
from tensorplug.families.sorting.ops import *  # noqa: F403
from tensorplug.families.sorting.sets import *  # noqa: F403
from tensorplug.families.structure import grids
from tensorplug.families.structure import ops as structure
from tensorplug.families.structure.grids import *  # noqa: F403
from tensorplug.families.structure.ops import *  # noqa: F403
from tensorplug.ops import dlpack
from tensorplug.ops.dlpack import *  # noqa: F403
from tensorplug.plugins.manager import load_plugins as _load_plugins
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
__all__ += control_flow.__all__

_op_registry._reserved.update(__all__, ["getitem"])


def __getattr__(name: str) -> Any:
    if name.startswith("_"):  # dunders and private names never trigger plugin discovery
        raise AttributeError(name)
    _load_plugins()
    func = _op_registry.get_op(name)
    if func is None:
        raise AttributeError(
            f"tensorplug has no op '{name}'; plugin ops: {_op_registry.list_ops() or 'none'}. "
            "Install the plugin that provides it."
        )
    return func
