"""Axis and shape helpers for ops: normalization with errors that name the op, and the
(cheap, host-side) shape arithmetic ops need before they dispatch."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from ..dtypes import DType, result_type
from ..engine import wrap
from ..errors import ShapeError
from ..specs._rules import broadcast_shapes
from ..tensor import Tensor
from ._convert import asarray, astype

__all__ = ["axis_for", "axes_for", "broadcast_for", "promote_all", "detached", "prod"]

prod = math.prod


def axis_for(op: str, axis: Any, ndim: int) -> int:
    """`axis` (negative counts from the end) as a non-negative int for an `ndim`-d input;
    ShapeError naming `op`, the axis and the valid range otherwise (a 0-d input has no axis)."""
    if type(axis) is int and -ndim <= axis < ndim:
        return axis % ndim
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise ShapeError(f"{op}: axis must be an int, got {axis!r}.")
    a = operator.index(axis)
    if -ndim <= a < ndim:
        return a % ndim
    valid = f"{-ndim}..{ndim - 1}" if ndim else "none, a 0-d input has no axes"
    raise ShapeError(f"{op}: axis {a} is out of range for a {ndim}-d input (valid: {valid}).")


def axes_for(op: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """None -> all axes; an int or a sequence -> a sorted tuple of non-negative axes. As in
    numpy, axis 0 or -1 of a 0-d input means no axis."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:
        return (axis % ndim,)
    if not isinstance(axis, (list, tuple)):
        axis = (axis,)
    if not ndim and all(type(a) is int and a in (0, -1) for a in axis):
        return ()
    out = tuple(axis_for(op, a, ndim) for a in axis)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: axis {tuple(axis)} names an axis of the {ndim}-d input twice; "
                         "name each axis once.")
    return tuple(sorted(out))


def broadcast_for(op: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of `shapes`; ShapeError naming `op` if they clash."""
    try:
        return broadcast_shapes(*shapes)
    except ShapeError as exc:
        raise ShapeError(f"{op}: {exc}") from None


def promote_all(arrays: Sequence[Any]) -> tuple[list[Tensor], DType]:
    """Array-likes as Tensors of one promoted dtype."""
    tensors = [asarray(a) for a in arrays]
    dtype = result_type(*(t._dtype for t in tensors))
    return [astype(t, dtype) for t in tensors], dtype


def detached(x: Tensor) -> Tensor:
    """x's values as a new tensor that autodiff does not trace through (like stop_gradient)."""
    return wrap(x._data, x._backend, x._dtype)
