"""Copying and pickling tensors (and, in ``core/variable.py``, Variables).

A tensor is immutable, so ``copy.copy`` and ``copy.deepcopy`` give the tensor itself (as they
do a tuple). Pickled, a tensor is its values on the host with its dtype's and its backend's
names; it is unpickled as a new tensor on that backend (which must be installed), on the
backend's default device. A tensor inside ``tp.jit`` or ``tp.vmap`` has no values of its own to
pickle (TracedValueError).

A Variable is mutable: a copy (``copy.copy`` or ``copy.deepcopy``) is a new Variable with the
same value, dtype, backend and trainability. Names are unique among live Variables, so a copy
takes a free name made from the original's (``w`` gives ``w_1``, then ``w_2``, ...). An
unpickled Variable keeps its name when no live Variable has it (in another process, say), and
otherwise takes a free name made the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.convert import asarray

__all__ = ["reduce_tensor", "restore_tensor"]


def reduce_tensor(t: Tensor) -> tuple[Any, ...]:
    """``Tensor.__reduce__``: restore_tensor and its arguments."""
    return restore_tensor, (t.numpy(), t._dtype.name, t._backend.name)


def restore_tensor(values: np.ndarray, dtype: str, backend: str) -> Tensor:
    """A pickled tensor: `values` as `dtype` on `backend`."""
    return asarray(values, dtype=dtype, backend=backend)
