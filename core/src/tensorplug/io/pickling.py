"""Copying and pickling tensors and Variables.

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

import itertools
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable, name_taken
from tensorplug.families._common.convert import asarray

__all__ = ["reduce_tensor", "restore_tensor", "copy_variable", "reduce_variable", "restore_variable"]


def reduce_tensor(t: Tensor) -> tuple[Any, ...]:
    """``Tensor.__reduce__``: restore_tensor and its arguments."""
    return restore_tensor, (t.numpy(), t._dtype.name, t._backend.name)


def restore_tensor(values: np.ndarray, dtype: str, backend: str) -> Tensor:
    """A pickled tensor: `values` as `dtype` on `backend`."""
    return asarray(values, dtype=dtype, backend=backend)


def copy_variable(v: Variable) -> Variable:
    """``copy.copy`` and ``copy.deepcopy`` of a Variable: a new one, under a free name."""
    with backend_scope(v._backend.name):
        return Variable(v, name=_free_name(v._name), trainable=v.trainable)


def reduce_variable(v: Variable) -> tuple[Any, ...]:
    """``Variable.__reduce__``: restore_variable and its arguments."""
    return restore_variable, (v.numpy(), v._dtype.name, v._backend.name, v._name, v.trainable)


def restore_variable(values: np.ndarray, dtype: str, backend: str, name: str, trainable: bool) -> Variable:
    """A pickled Variable: under its name if that is free, else under a free name made from it."""
    with backend_scope(backend):
        return Variable(restore_tensor(values, dtype, backend), name=_free_name(name), trainable=trainable)


def _free_name(name: str) -> str:
    """`name` if no live Variable has it, else the first free one of ``name_1``, ``name_2``, ..."""
    if not name_taken(name):
        return name
    return next(n for n in (f"{name}_{k}" for k in itertools.count(1)) if not name_taken(n))
