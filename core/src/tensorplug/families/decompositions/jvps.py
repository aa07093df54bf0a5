"""JVP rules of the decompositions and solvers: JAX's (jax/_src/lax/linalg.py), written with ops.

They assume what the gradients assume (``gradients.py`` here): invertible matrices
(Inv, Solve, Slogdet, Det), distinct eigenvalues (Eigh) and distinct nonzero singular values
(Svd); Qr with M >= N in mode 'reduced' (or square), Svd with full_matrices=False (or square):
the others raise AutodiffError, as their gradients do. Cholesky, Eigh and Eigvalsh read the
lower triangle as a Hermitian matrix, so they see the tangent read the same way. Eigvalsh and
Svdvals compute the vectors their rules need (one more decomposition, as their gradients).
Complex inputs: the directional derivative (Inv, Solve, Det are holomorphic; the others' rules
are JAX's, with conjugate transposes). Eig's and Eigvals' (JAX has eigenvalues only) are
PyTorch's linalg_eig_jvp: distinct eigenvalues, eigenvectors kept at unit norm, no phase added.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import jvp_rule
from tensorplug.families.decompositions.gradients import (
    conj_if_complex,
    constant_like,
    diag_matrices,
    off_columns,
    reciprocal_gaps,
    reduced_qr_shape,
    reduced_svd_shape,
)
from tensorplug.families.decompositions.ops import conj_transpose as _H
from tensorplug.families.decompositions.ops import eig, eigh, inv, solve, svd
from tensorplug.families.elementwise.ops import add, conj, imag, multiply, negative, real, subtract
from tensorplug.families.linalg.matrix_functions import diagonal
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import expand_dims, matrix_transpose
from tensorplug.families.reductions.ops import sum as _sum

Tangents = tuple[Tensor | None, ...]
_T = matrix_transpose


def _only(tangents: Tangents) -> Tensor:
    """The tangent of a one-input kernel (forward mode calls its rule only with one)."""
    (t,) = tangents
    assert t is not None
    return t


def _real(x: Tensor) -> Tensor:
    return real(x) if x.dtype.is_complex else x


def _lower_read(t: Tensor) -> Tensor:
    """The Hermitian matrix a kernel reading only the lower triangle sees of `t`:
    tril(t, -1) + tril(t, -1)^H + real(diag(t))."""
    n = t.shape[-1]
    low = multiply(t, constant_like(np.tril(np.ones((n, n)), -1), t))
    return add(add(low, _H(low)), diag_matrices(_real(diagonal(t))))


def _trace_of_inverse_times(a: Tensor, t: Tensor) -> Tensor:
    """tr(A^-1 T) for each matrix: sum(A^-T o T)."""
    return _sum(multiply(_T(inv(a)), t), axis=(-2, -1))


@jvp_rule("Cholesky")
def _cholesky(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
              attrs: Mapping[str, Any]) -> Tensor:
    """dL = L phi(L^-1 dS L^-H), phi: the lower triangle with half the diagonal."""
    (low,), t = outputs, _only(tangents)
    n = low.shape[-1]
    low_inv = inv(low)
    inner = matmul(low_inv, matmul(_lower_read(t), _H(low_inv)))
    phi = constant_like(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), low)
    return matmul(low, multiply(inner, phi))


@jvp_rule("Eigh")
def _eigh(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> tuple[Tensor, Tensor]:
    """With M = V^H dS V: dw = real(diag(M)), dV = V (F o M), F[i, j] = 1 / (w_j - w_i)."""
    (w, v), t = outputs, _only(tangents)
    m = matmul(_H(v), matmul(_lower_read(t), v))
    return _real(diagonal(m)), matmul(v, multiply(reciprocal_gaps(w, False), m))


@jvp_rule("Eigvalsh")
def _eigvalsh(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
              attrs: Mapping[str, Any]) -> Tensor:
    """dw_k = real(v_k^H dS v_k), the eigenvectors computed here."""
    (x,), t = primals, _only(tangents)
    v = eigh(x).eigenvectors
    return _real(_sum(multiply(conj_if_complex(v), matmul(_lower_read(t), v)), axis=-2))


@jvp_rule("Eig")
def _eig(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> tuple[Tensor, Tensor]:
    """With P = V^-1 dx V: dw = diag(P), dV = X - V re(diag(V^H X)), X = V (F o P) (each
    column's norm kept, no phase added; F[i, j] = 1 / (w_j - w_i))."""
    (w, v), t = outputs, _only(tangents)
    p = solve(v, matmul(t, v))
    moved = matmul(v, multiply(reciprocal_gaps(w, False), p))
    along = real(_sum(multiply(conj(v), moved), axis=-2))
    return diagonal(p), subtract(moved, multiply(v, expand_dims(along, axis=-2)))


@jvp_rule("Eigvals")
def _eigvals(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
    """dw = diag(V^-1 dx V), the eigenvectors computed here."""
    (x,), t = primals, _only(tangents)
    v = eig(x).eigenvectors
    return diagonal(solve(v, matmul(t, v)))

@jvp_rule("Inv")
def _inv(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> Tensor:
    (x,), t = outputs, _only(tangents)
    return negative(matmul(x, matmul(t, x)))


@jvp_rule("Det")
def _det(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> Tensor:
    (a,), t, (d,) = primals, _only(tangents), outputs
    return multiply(d, _trace_of_inverse_times(a, t))


@jvp_rule("Slogdet")
def _slogdet(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> tuple[Tensor | None, Tensor]:
    """With s = tr(A^-1 dA): d logabsdet = real(s), d sign = i imag(s) sign (a real sign is
    locally constant)."""
    (a,), t, (sign, _) = primals, _only(tangents), outputs
    s = _trace_of_inverse_times(a, t)
    if not a.dtype.is_complex:
        return None, s
    return multiply(sign, multiply(imag(s), 1j)), real(s)


@jvp_rule("Solve")
def _solve(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
           attrs: Mapping[str, Any]) -> Tensor:
    """X = A^-1 B: dX = A^-1 (dB - dA X)."""
    (a, _), (ta, tb), (x,) = primals, tangents, outputs
    if ta is None:
        assert tb is not None  # (forward mode calls a rule only with some tangent)
        rhs = tb
    else:
        moved = matmul(ta, x)
        rhs = negative(moved) if tb is None else subtract(tb, moved)
    return solve(a, rhs)


@jvp_rule("Qr")
def _qr(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
        attrs: Mapping[str, Any]) -> tuple[Tensor, Tensor]:
    """JAX's: with C = Q^H dA R^-1 and O = tril(C, -1) - tril(C, -1)^H (+ i imag(diag(C))),
    dQ = Q (O - C) + dA R^-1 and dR = (C - O) R."""
    (q, r), t = outputs, _only(tangents)
    _, n = reduced_qr_shape(q, r, attrs["mode"], "JVP")
    t_rinv = _T(solve(_T(r), _T(t)))
    c = matmul(_H(q), t_rinv)
    low = multiply(c, constant_like(np.tril(np.ones((n, n)), -1), c))
    o = subtract(low, _H(low))
    if c.dtype.is_complex:
        o = add(o, multiply(subtract(c, real(c)), constant_like(np.eye(n), c)))
    return add(matmul(q, subtract(o, c)), t_rinv), matmul(subtract(c, o), r)


@jvp_rule("Svdvals")
def _svdvals(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
    """ds_k = real(u_k^H dA v_k), the reduced singular vectors computed here."""
    (x,), t = primals, _only(tangents)
    u, _, vh = svd(x, full_matrices=False)
    return _real(_sum(multiply(conj_if_complex(u), matmul(t, _H(vh))), axis=-2))


@jvp_rule("Svd")
def _svd(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> tuple[Tensor, Tensor, Tensor]:
    """JAX's (distinct, nonzero singular values): with D = U^H dA V and F[i, j] = 1 / (s_j^2 -
    s_i^2), ds = real(diag(D)), dU = U (F o (D S + S D^H) + (D - D^H) / 2 S^-1 on the diagonal),
    dV = V (F o (S D + D^H S)), plus dA's parts off U's (V's) columns when M > N (N > M)."""
    (u, s, vh), t = outputs, _only(tangents)
    m, n = reduced_svd_shape(u, s, vh, "JVP")
    v = _H(vh)
    d = matmul(_H(u), matmul(t, v))
    ds = _real(diagonal(d))
    f = reciprocal_gaps(s, True)
    s_row = expand_dims(s, axis=-2)  # (..., 1, K): scales columns
    s_col = expand_dims(s, axis=-1)  # (..., K, 1): scales rows
    dss, sds = multiply(d, s_row), multiply(s_col, d)
    inner_u = multiply(f, add(dss, _H(dss)))
    if d.dtype.is_complex:  # the phase of each pair of singular vectors (JAX's dUdV_diag)
        inner_u = add(inner_u, diag_matrices(multiply(imag(diagonal(d)), 1j) / s))
    du = matmul(u, inner_u)
    dv = matmul(v, multiply(f, add(sds, _H(sds))))
    if m > n:
        du = add(du, off_columns(matmul(t, v), u, s_row))
    if n > m:
        dv = add(dv, off_columns(matmul(_H(t), u), v, s_row))
    return du, ds, _H(dv)
