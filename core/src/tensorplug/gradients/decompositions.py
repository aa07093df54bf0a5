"""Default gradients of the decompositions and solvers: Cholesky, Eigh, Inv, Qr, Svd, Solve,
Slogdet, Det. The math is JAX's JVP rules (jax/_src/lax/linalg.py) transposed; every formula is
written with ops, so it runs on any backend and differentiates again (outputs are saved, so
higher derivatives reach them through the tape).

What they assume, as JAX's rules do: invertible matrices (Inv, Solve, Slogdet, Det); distinct
eigenvalues (Eigh) and distinct nonzero singular values (Svd); Qr in 'reduced' mode with
M >= N (or square in 'complete' mode), and Svd with full_matrices=False (or square matrices).
The others raise AutodiffError. Cholesky and Eigh read only the lower triangle, so their
gradient lives on it: the upper triangle's entries get 0 (the kernels never read them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..errors import AutodiffError
from ..ops._convert import asarray
from ..ops.decompositions import inv, solve
from ..ops.elementwise import add, divide, equal, multiply, negative, subtract, where
from ..ops.linalg import matmul
from ..ops.manipulation import expand_dims, matrix_transpose
from ..ops.matrix_functions import diagonal
from ..tensor import Tensor
from ._util import gradient, unbroadcast

Grads = Mapping[str, Callable[[], Tensor]]

_T = matrix_transpose


def _constant(array: np.ndarray, like: Tensor) -> Tensor:
    return asarray(array.astype(like.dtype.numpy))


def _diag(v: Tensor) -> Tensor:
    """The diagonal matrices (..., K, K) with `v` (..., K) on their diagonals."""
    k = v.shape[-1]
    return multiply(expand_dims(v, axis=-1), _constant(np.eye(k), v))


def _lower_read(g: Tensor) -> Tensor:
    """The gradient with respect to A of a function of S = tril(A) + tril(A, -1)^T (a kernel
    that reads A's lower triangle only), given its gradient `g` with respect to S."""
    n = g.shape[-1]
    return add(multiply(g, _constant(np.tril(np.ones((n, n))), g)),
               multiply(_T(g), _constant(np.tril(np.ones((n, n)), -1), g)))


def _reciprocal_gaps(values: Tensor, square: bool) -> Tensor:
    """F with F[..., i, j] = 1 / (v_j - v_i) (1 / (v_j^2 - v_i^2) if `square`) off the diagonal
    and 0 on it (JAX's F of the eigh and svd rules)."""
    row, col = expand_dims(values, axis=-2), expand_dims(values, axis=-1)
    gaps = subtract(row, col)
    if square:
        gaps = multiply(gaps, add(row, col))
    off = _constant(1.0 - np.eye(values.shape[-1]), values)
    safe = where(equal(off, 0.0), 1.0, gaps)
    return multiply(divide(off, safe), off)


@gradient("Cholesky", outputs=("out",))
def _cholesky(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """dL = L phi(L^-1 dS L^-T), phi: the lower triangle with half the diagonal; transposed:
    dS-bar = L^-T phi(L^T dL-bar) L^-1, then onto the lower triangle read."""
    (low,) = saved

    def grad() -> Tensor:
        n = low.shape[-1]
        phi = _constant(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), low)
        low_inv = inv(low)
        inner = multiply(matmul(_T(low), dy), phi)
        return _lower_read(matmul(_T(low_inv), matmul(inner, low_inv)))

    return {"x": grad}


@gradient("Eigh", outputs=("eigenvalues", "eigenvectors"))
def _eigh(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """dw = diag(V^T dS V), dV = V (F o V^T dS V); transposed: dS-bar = V (diag(w-bar) +
    F o V^T V-bar) V^T (distinct eigenvalues)."""
    w, v = saved
    dw, dv = dy

    def grad() -> Tensor:
        inner = add(_diag(dw), multiply(_reciprocal_gaps(w, False), matmul(_T(v), dv)))
        return _lower_read(matmul(v, matmul(inner, _T(v))))

    return {"x": grad}


@gradient("Inv", outputs=("out",))
def _inv(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """d(A^-1) = -A^-1 dA A^-1; transposed: A-bar = -X^T dy X^T for X = A^-1."""
    (x,) = saved
    return {"x": lambda: negative(matmul(_T(x), matmul(dy, _T(x))))}


@gradient("Solve", inputs=("a", "b"), outputs=("out",))
def _solve(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """X = A^-1 B: B-bar = A^-T X-bar, A-bar = -B-bar X^T (batch axes summed back)."""
    a, b, x = saved
    cache: list[Tensor] = []

    def b_bar() -> Tensor:
        if not cache:
            cache.append(solve(_T(a), dy))
        return cache[0]

    return {"a": lambda: unbroadcast(negative(matmul(b_bar(), _T(x))), a.shape),
            "b": lambda: unbroadcast(b_bar(), b.shape)}


@gradient("Slogdet", inputs=("x",))
def _slogdet(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """d log|det A| = tr(A^-1 dA): A-bar = logabsdet-bar A^-T (the sign is locally constant)."""
    (a,) = saved
    _, dlog = dy
    return {"x": lambda: multiply(expand_dims(dlog, axis=(-2, -1)), _T(inv(a)))}


@gradient("Det", inputs=("x",), outputs=("out",))
def _det(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """d det A = det A tr(A^-1 dA): A-bar = dy det(A) A^-T (A invertible)."""
    a, d = saved
    return {"x": lambda: multiply(expand_dims(multiply(dy, d), axis=(-2, -1)), _T(inv(a)))}


@gradient("Qr", outputs=("q", "r"))
def _qr(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """JAX's QR rule transposed (M >= N, Q of shape (M, N)): with X = triu(R-bar R^T - Q^T
    Q-bar) and S = X + X^T - diag(X), A-bar = (Q-bar + Q S) R^-T."""
    q, r = saved
    dq, dr = dy
    m, n = q.shape[-2], r.shape[-1]
    if m < n or q.shape[-1] != n:
        raise AutodiffError(
            f"the gradient of Qr is defined for M >= N in mode 'reduced' (or square matrices), got "
            f"{m} x {n} matrices in mode '{attrs['mode']}': Q's extra columns are not unique. Use "
            "mode='reduced' on matrices with at least as many rows as columns.")

    def grad() -> Tensor:
        upper = _constant(np.triu(np.ones((n, n))), r)
        x = multiply(subtract(matmul(dr, _T(r)), matmul(_T(q), dq)), upper)
        s = subtract(add(x, _T(x)), _diag(diagonal(x)))
        return _T(solve(r, _T(add(dq, matmul(q, s)))))

    return {"x": grad}


@gradient("Svd", outputs=("u", "s", "vh"))
def _svd(dy: tuple[Tensor, Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """JAX's SVD rule transposed (distinct, nonzero singular values): with F[i, j] = 1 / (s_j^2
    - s_i^2), J = F o U^T U-bar and K = F o V^T V-bar, A-bar = U (diag(s-bar) + (J + J^T) S +
    S (K + K^T)) V^T, plus the parts of U-bar (V-bar) off U's (V's) columns when M > N (N > M)."""
    u, s, vh = saved
    du, ds, dvh = dy
    m, n = u.shape[-2], vh.shape[-1]
    k = s.shape[-1]
    if u.shape[-1] != k or vh.shape[-2] != k:
        raise AutodiffError(
            f"the gradient of Svd with full_matrices=True is defined for square matrices only, got "
            f"{m} x {n}: the extra singular vectors are not unique. Use full_matrices=False (or "
            "tp.linalg.svdvals for the singular values alone).")

    def grad() -> Tensor:
        v, dv = _T(vh), _T(dvh)
        f = _reciprocal_gaps(s, True)
        j = multiply(f, matmul(_T(u), du))
        kk = multiply(f, matmul(vh, dv))
        s_row = expand_dims(s, axis=-2)  # (..., 1, K): scales columns
        s_col = expand_dims(s, axis=-1)  # (..., K, 1): scales rows
        core = add(_diag(ds), add(multiply(add(j, _T(j)), s_row), multiply(s_col, add(kk, _T(kk)))))
        out = matmul(u, matmul(core, vh))
        if m > n:
            off = subtract(du, matmul(u, matmul(_T(u), du)))
            out = add(out, matmul(divide(off, s_row), vh))
        if n > m:
            off = subtract(dv, matmul(v, matmul(vh, dv)))
            out = add(out, matmul(u, _T(divide(off, s_row))))
        return out

    return {"x": grad}
