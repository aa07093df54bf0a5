"""The ``tp.linalg`` functions composed of other ops: diagonal, trace, cross, matrix_power,
matrix_rank, pinv (Python Array API names and signatures). Differentiable through the ops
they are made of."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_, default_int
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, convert_pair
from tensorplug.families.creation.ops import eye, zeros
from tensorplug.families.decompositions.ops import conj_transpose, float_matrices, inv, svd, svdvals
from tensorplug.families.decompositions.spec import matrix_shape
from tensorplug.families.elementwise.ops import divide, greater, multiply, subtract, where
from tensorplug.families.indexing.ops import getitem
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import broadcast_to, expand_dims, moveaxis, reshape, stack
from tensorplug.families.reductions.ops import max as _max
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.kernels.shape_rules import broadcast_shapes, normalize_axis

__all__ = ["cross", "diagonal", "matrix_power", "matrix_rank", "pinv", "trace"]


def diagonal(x: Any, /, *, offset: int = 0) -> Tensor:
    """The diagonal of each matrix of x (..., M, N) offset by `offset` (> 0: above the main
    one, < 0: below), as the last axis of the result."""
    x = asarray(x)
    m, n = matrix_shape(x.shape, "diagonal")
    k = valid.integer(offset, "diagonal", "offset")
    length = max(0, min(m, n - k) if k >= 0 else min(m + k, n))
    start = k if k >= 0 else -k * n  # element (i, i + k) of a row-major matrix is i * (n + 1) + k
    flat = reshape(x, x.shape[:-2] + (m * n,))
    if length == 0:
        return getitem(flat, (..., slice(0, 0)))
    return getitem(flat, (..., slice(start, start + (length - 1) * (n + 1) + 1, n + 1)))


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Tensor:
    """Sum of the diagonal (offset by `offset`) of each matrix of x, shape x.shape[:-2]; `dtype`
    as for tp.sum (the input is cast to it before summing)."""
    x = asarray(x)
    if x._dtype is bool_:
        raise DTypeError("trace needs a numeric input, got bool; cast first, e.g. x.astype(tp.int64).")
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Tensor:
    """Cross product of 3-element vectors along `axis` (counted from the last axis of the
    broadcast shape; x1 and x2 need size 3 there); the other axes broadcast."""
    a, b = convert_pair(x1, x2, "cross")
    if a._dtype is bool_:
        raise DTypeError("cross does not accept bool tensors; cast first, e.g. x.astype(tp.int64).")
    sa, sb = a.shape, b.shape
    if not sa or not sb:
        raise ShapeError(f"cross needs inputs with at least one dimension, got shapes {sa} and {sb}.")
    shape = broadcast_shapes(sa, sb, op="cross")
    ax = normalize_axis(axis, len(shape), "cross") - len(shape)  # negative: counts from the right
    if -ax > len(sa) or -ax > len(sb) or sa[ax] != 3 or sb[ax] != 3:
        raise ShapeError(f"cross: x1 (shape {sa}) and x2 (shape {sb}) must both have size 3 along axis "
                         f"{axis}.")
    u = [getitem(moveaxis(a, ax, -1), (..., i)) for i in range(3)]
    v = [getitem(moveaxis(b, ax, -1), (..., i)) for i in range(3)]
    parts = [subtract(multiply(u[1], v[2]), multiply(u[2], v[1])),
             subtract(multiply(u[2], v[0]), multiply(u[0], v[2])),
             subtract(multiply(u[0], v[1]), multiply(u[1], v[0]))]
    return moveaxis(stack(parts, axis=-1), -1, ax)


def matrix_power(x: Any, n: int, /) -> Tensor:
    """Each square matrix of x raised to the integer power `n` by repeated squaring: the
    identity for n = 0, powers of the inverse for n < 0."""
    t = float_matrices(x, "matrix_power", square=True)
    power = valid.integer(n, "matrix_power", "n")
    if power == 0:
        return broadcast_to(eye(t.shape[-1], dtype=t.dtype), t.shape)
    if power < 0:
        t, power = inv(t), -power
    result: Tensor | None = None
    while True:
        if power & 1:
            result = t if result is None else matmul(result, t)
        power >>= 1
        if not power:
            return result  # type: ignore[return-value]
        t = matmul(t, t)


def _cutoff(s: Tensor, x: Tensor, rtol: Any, op: str) -> Tensor:
    """rtol times the largest singular value of each matrix, shape (..., 1) against `s`; rtol
    None is max(M, N) * eps of x's dtype (the standard's default)."""
    largest = _max(s, axis=-1, keepdims=True)
    if rtol is None:
        return multiply(largest, max(x.shape[-2:]) * float(np.finfo(x.dtype.numpy).eps))
    if isinstance(rtol, (int, float)) and not isinstance(rtol, bool):
        return multiply(largest, float(rtol))
    r = asarray(rtol)
    if r._dtype.kind != "float":
        raise DTypeError(f"{op}: rtol must be a float or a real floating-point array, got {r._dtype.name}.")
    broadcast_shapes(r.shape, x.shape[:-2], op=op)
    return multiply(largest, expand_dims(r.astype(largest.dtype), axis=-1))


def matrix_rank(x: Any, /, *, rtol: float | Tensor | None = None) -> Tensor:
    """The number of singular values of each matrix above rtol times its largest one (default
    int dtype, shape x.shape[:-2])."""
    t = float_matrices(x, "matrix_rank")
    if min(t.shape[-2:]) == 0:
        return zeros(t.shape[:-2], dtype=default_int)
    s = svdvals(t)
    return _sum(greater(s, _cutoff(s, t, rtol, "matrix_rank")), axis=-1, dtype=default_int)


def pinv(x: Any, /, *, rtol: float | Tensor | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (..., N, M) of each matrix (..., M, N), from its SVD
    (V diag(1/S) U^H): singular values at most rtol times the largest count as zero."""
    t = float_matrices(x, "pinv")
    m, n = t.shape[-2:]
    if min(m, n) == 0:
        return zeros(t.shape[:-2] + (n, m), dtype=t.dtype)
    u, s, vh = svd(t, full_matrices=False)
    keep = greater(s, _cutoff(s, t, rtol, "pinv"))
    s_inv = where(keep, divide(1.0, where(keep, s, 1.0)), 0.0)
    return matmul(conj_transpose(vh), multiply(expand_dims(s_inv, axis=-1), conj_transpose(u)))

