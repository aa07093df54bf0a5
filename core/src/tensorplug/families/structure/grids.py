"""Ops over positions along axes (Python Array API names), composed of other ops and so
differentiable through them: meshgrid (coordinate grids), tril and triu (triangles of a stack
of matrices, zeros elsewhere), diff (differences of neighbours along an axis)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.axes import promote_all
from tensorplug.families._common.convert import asarray, caller
from tensorplug.families.creation.ops import arange, zeros_like
from tensorplug.families.elementwise.ops import greater_equal, less_equal, not_equal, subtract, where
from tensorplug.families.manipulation.ops import broadcast_to, concat, reshape
from tensorplug.kernels.shape_rules import normalize_axis

__all__ = ["diff", "meshgrid", "tril", "triu"]

_BAND_PART = caller("MatrixBandPart")


def meshgrid(*arrays: Any, indexing: str = "xy") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-d arrays of one dtype: N arrays give a tuple of N tensors of shape
    (len(a0), len(a1), ...) for indexing 'ij', with the first two sizes swapped for 'xy'."""
    if not isinstance(indexing, str) or indexing not in ("xy", "ij"):
        raise ArgumentError(f"meshgrid: indexing must be 'xy' or 'ij', got {valid.shown(indexing)}.")
    tensors = [asarray(a) for a in arrays]
    for i, t in enumerate(tensors):
        if t.ndim != 1:
            raise ShapeError(f"meshgrid: array {i} has shape {t.shape}; every array must be 1-d "
                             "(flatten it with reshape(a, (-1,))).")
    if len({t.dtype for t in tensors}) > 1:
        raise DTypeError(f"meshgrid: the arrays must share one dtype, got "
                         f"{[t.dtype.name for t in tensors]}; cast them first, e.g. a.astype(tp.float32).")
    positions = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        positions[0], positions[1] = 1, 0
    shape = [0] * len(tensors)
    for t, p in zip(tensors, positions):
        shape[p] = t.shape[0]
    if tensors:
        valid.checked_size(tuple(shape), tensors[0]._backend, "meshgrid")
    out = []
    for t, p in zip(tensors, positions):
        lined_up = reshape(t, tuple(d if i == p else 1 for i, d in enumerate(shape)))
        out.append(broadcast_to(lined_up, tuple(shape)))
    return tuple(out)


def _triangle(op: str, x: Any, k: Any, keep: Any) -> Tensor:
    x = asarray(x)
    if x.ndim < 2:
        raise ShapeError(f"{op}: x must be a matrix or a stack of matrices (at least 2-d), got shape "
                         f"{x.shape}; reshape a vector to (1, n) first.")
    rows, cols = x.shape[-2:]
    k = min(max(valid.integer(k, op, "k"), -rows), cols)  # (beyond these, nothing changes)
    if (k >= 0) if keep is less_equal else (k <= 0):  # a band around the diagonal: one kernel
        lower, upper = (-1, k) if keep is less_equal else (-k, -1)
        return _BAND_PART((x,), {"num_lower": lower, "num_upper": upper})
    offset = subtract(reshape(arange(cols), (1, cols)), reshape(arange(rows), (rows, 1)))  # j - i
    return where(keep(offset, k), x, zeros_like(x))


def tril(x: Any, /, *, k: int = 0) -> Tensor:
    """The lower triangle of each matrix of x (on and below the k-th diagonal; k > 0 above the
    main one), zeros above it; x is (..., M, N)."""
    return _triangle("tril", x, k, less_equal)


def triu(x: Any, /, *, k: int = 0) -> Tensor:
    """The upper triangle of each matrix of x (on and above the k-th diagonal; k < 0 below the
    main one), zeros below it; x is (..., M, N)."""
    return _triangle("triu", x, k, greater_equal)


def _edge(value: Any, x: Tensor, axis: int, what: str) -> Tensor:
    """`prepend`/`append` as a tensor of x's rank (a scalar becomes one slice along `axis`)."""
    t = asarray(value)
    if t.ndim == 0:
        return broadcast_to(t, tuple(1 if i == axis else d for i, d in enumerate(x.shape)))
    if t.ndim != x.ndim or any(p != q for i, (p, q) in enumerate(zip(t.shape, x.shape)) if i != axis):
        raise ShapeError(f"diff: {what} has shape {t.shape}; it needs x's shape {x.shape} except along "
                         f"axis {axis} (or be a scalar).")
    return t


def _neighbours(x: Tensor, axis: int) -> Tensor:
    """x[1:] - x[:-1] along `axis` (for bools: x[1:] != x[:-1], as numpy)."""
    lead = (slice(None),) * axis
    hi, lo = x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)]
    return not_equal(hi, lo) if x.dtype is bool_ else subtract(hi, lo)


def diff(x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Tensor:
    """The n-th forward difference along `axis` (out[i] = x[i+1] - x[i], n times), after
    joining `prepend` and `append` to x along that axis (dtypes promote)."""
    x = asarray(x)
    if x.ndim == 0:
        raise ShapeError("diff: x is 0-d; it needs at least one axis to take differences along "
                         "(reshape it to (1,) first).")
    a = normalize_axis(axis, x.ndim, "diff")
    n = valid.integer(n, "diff", "n", minimum=0)
    parts: Sequence[Tensor] = [x]
    if prepend is not None or append is not None:
        before = [] if prepend is None else [_edge(prepend, x, a, "prepend")]
        after = [] if append is None else [_edge(append, x, a, "append")]
        parts, _ = promote_all([*before, x, *after])
        x = concat(parts, axis=a)
    for _ in range(n):
        if x.shape[a] == 0:
            break  # (differences of nothing are nothing)
        x = _neighbours(x, a)
    return x
