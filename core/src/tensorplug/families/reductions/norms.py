"""``tp.linalg.vector_norm`` and ``tp.linalg.matrix_norm`` (Python Array API signatures),
composed of reductions, elementwise ops and svdvals; the 2-norm and the Frobenius norm are one
EuclideanNorm kernel. Inputs must be floating, real or complex; the norms are real (``real_of``
a complex input's dtype): a complex input's norms are those of its elements' moduli, and its
singular values are real."""

from __future__ import annotations

import math
from typing import Any, Literal

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families._common.convert import asarray, caller
from tensorplug.families.decompositions.ops import floating, svdvals
from tensorplug.families.decompositions.spec import matrix_shape
from tensorplug.families.elementwise.ops import abs as _abs
from tensorplug.families.elementwise.ops import not_equal, pow
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.reductions.ops import max as _max
from tensorplug.families.reductions.ops import min as _min
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.kernels.shape_rules import normalize_axes

__all__ = ["matrix_norm", "vector_norm"]

_EUCLIDEAN_NORM = caller("EuclideanNorm")
_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _moduli(t: Tensor) -> Tensor:
    """|t| for a complex t (a real tensor: what the norms of a complex input are made of); t
    itself for a real one."""
    return _abs(t) if t._dtype.is_complex else t


def _order(ord: Any, op: str) -> float:
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ArgumentError(f"{op}: ord must be a number (an int, a float, inf or -inf), got "
                            f"{valid.shown(ord)}.")
    return float(valid.number(ord, op, "ord"))  # (an int past any float refused)


def _extreme(t: Tensor, axes: tuple[int, ...], keepdims: bool, largest: bool, op: str,
             why: str) -> Tensor:
    """The largest (or smallest) of the non-negative `t` over `axes`. Over an empty axis the
    largest is 0 (numpy's norms give it); the smallest has no value: ShapeError naming `op`
    and `why` (the ord and the input's shape)."""
    if not any(t.shape[a] == 0 for a in axes):
        return (_max if largest else _min)(t, axis=axes, keepdims=keepdims)
    if largest:
        return _sum(t, axis=axes, keepdims=keepdims)  # (zeros of the reduced shape)
    raise ShapeError(f"{op}: {why}, a minimum over an empty axis, has no value; give a non-empty "
                     "input or another ord.")


def vector_norm(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Tensor:  # noqa: A002
    """The p-norm (p = `ord`) of the vectors along `axis` (all axes if None, several for a
    tuple): (sum |x|^p)^(1/p); inf and -inf give the largest and smallest |x|, 0 the number
    of nonzero elements (as a float)."""
    t = floating(asarray(x), "vector_norm")
    p = _order(ord, "vector_norm")
    keep = valid.flag(keepdims, "vector_norm", "keepdims")
    axes = normalize_axes(axis, t.ndim, "vector_norm")
    if p == 2:
        return _EUCLIDEAN_NORM((t,), {"axis": axes, "keepdims": keep})
    t = _moduli(t)
    if abs(p) == math.inf:
        return _extreme(_abs(t), axes, keep, p > 0, "vector_norm",
                        f"ord={ord} over axis {axis} of shape {t.shape}")
    if p == 0:
        return _sum(not_equal(t, 0.0), axis=axes, keepdims=keep).astype(t.dtype)
    if p == 1:
        return _sum(_abs(t), axis=axes, keepdims=keep)
    if math.isnan(p):
        raise ShapeError("vector_norm: ord must not be nan.")
    return pow(_sum(pow(_abs(t), p), axis=axes, keepdims=keep), 1.0 / p)


def matrix_norm(x: Any, /, *, keepdims: bool = False,
                ord: int | float | Literal["fro", "nuc"] | None = "fro") -> Tensor:  # noqa: A002
    """The norm `ord` of each matrix of x (..., M, N): 'fro' (Frobenius), 'nuc' (sum of
    singular values), 2 / -2 (largest / smallest singular value), 1 / -1 (largest / smallest
    column sum of |x|), inf / -inf (largest / smallest row sum of |x|)."""
    t = floating(asarray(x), "matrix_norm")
    matrix_shape(t.shape, "matrix_norm")
    keep = valid.flag(keepdims, "matrix_norm", "keepdims")
    if ord is None:
        ord = "fro"  # noqa: A001
    if isinstance(ord, bool) or not isinstance(ord, (str, int, float)) or ord not in _MATRIX_ORDS:
        raise ArgumentError(f"matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; got "
                            f"{valid.shown(ord)}.")
    if ord == "fro":
        out = _EUCLIDEAN_NORM((t,), {"axis": (-2, -1), "keepdims": False})
    elif ord == "nuc":
        out = _sum(svdvals(t), axis=-1)
    elif ord in (2, -2):
        out = _extreme(svdvals(t), (t.ndim - 2,), False, ord > 0, "matrix_norm",
                       f"ord={ord} of matrices of shape {t.shape[-2:]}")
    else:  # 1, -1: over the columns' sums; inf, -inf: over the rows' sums
        sums = _sum(_abs(t), axis=-2 if abs(ord) == 1 else -1)
        out = _extreme(sums, (t.ndim - 2,), False, ord > 0, "matrix_norm",
                       f"ord={ord} of matrices of shape {t.shape[-2:]}")
    return reshape(out, out.shape + (1, 1)) if keep else out

