"""Small helpers the ops share: dtype promotion of several arrays, a detached copy, prod.

Axis and shape rules (and their messages) are not here: they live with the kernel specs, in
``tensorplug.kernels.shape_rules`` and the families' ``spec.py`` modules, and ops call them
with their own name (``normalize_axes(axis, ndim, "sum")``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, result_type
from tensorplug.families._common.convert import asarray, astype
from tensorplug.kernels.dispatcher import wrap

__all__ = ["promote_all", "detached", "prod"]

prod = math.prod


def promote_all(arrays: Sequence[Any]) -> tuple[list[Tensor], DType]:
    """Array-likes as Tensors of one promoted dtype."""
    tensors = [asarray(a) for a in arrays]
    dtype = result_type(*(t._dtype for t in tensors))
    return [astype(t, dtype) for t in tensors], dtype


def detached(x: Tensor) -> Tensor:
    """x's values as a new tensor that autodiff does not trace through (like stop_gradient)."""
    return wrap(x._data, x._backend, x._dtype)
