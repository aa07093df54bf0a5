"""Default gradients of the decompositions and solvers: Cholesky, Eigh, Eigvalsh, Eig, Eigvals,
Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det. The math is JAX's JVP rules (jax/_src/lax/linalg.py) transposed;
every formula is written with ops, so it runs on any backend and differentiates again (outputs
are saved, so higher derivatives reach them through the tape).

What they assume, as JAX's rules do: invertible matrices (Inv, Solve, Slogdet, Det); distinct
eigenvalues (Eigh, Eigvalsh) and distinct nonzero singular values (Svd, Svdvals); Qr in
'reduced' mode with M >= N (or square in 'complete' mode), and Svd with full_matrices=False (or
square matrices). The others raise AutodiffError. Eigvalsh and Svdvals compute the vectors their
gradients need in the backward pass (tp.linalg.eigh, svd), so their higher derivatives go
through Eigh's and Svd's gradients. Cholesky, Eigh and Eigvalsh read only the lower triangle, so
their gradient lives on it: the upper triangle's entries get 0 (the kernels never read them).

Complex inputs follow JAX's convention (see families/elementwise/gradients.py), which is the complex
conjugate of the Wirtinger one PyTorch uses: for the holomorphic kernels (Inv, Solve, Det) the
real formulas hold with plain transposes; the others' formulas are written with conjugate
transposes (``_H``) and evaluated at the conjugates of the saved values (``conj_if_complex``), which gives
JAX's cotangents (and the real formulas for real inputs, where both are the identity). Eigh's
eigenvalues and Svd's singular values are real; their eigen- and singular vectors are unique up
to a phase, so only losses that phase does not move have a defined gradient (as in JAX).
Slogdet's sign has a gradient for complex inputs: sign-bar reaches A through i Im(sign-bar sign).
Eig (and Eigvals, whose eigenvectors are computed in the backward pass) takes PyTorch's rule
(linalg_eig_backward) in JAX's convention: eigenvalues are holomorphic in x; eigenvectors have
unit norm and a free phase, so only losses that phase does not move (|v|, v v^H, eigenvalues)
have a defined gradient; a real x gets the real part. Distinct eigenvalues are assumed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.convert import asarray
from tensorplug.families._common.gradient_util import gradient, unbroadcast
from tensorplug.families.decompositions.ops import conj_transpose as _H
from tensorplug.families.decompositions.ops import eig, eigh, inv, solve, svd
from tensorplug.families.elementwise.ops import (
    add,
    conj,
    divide,
    equal,
    imag,
    multiply,
    negative,
    real,
    subtract,
    where,
)
from tensorplug.families.linalg.matrix_functions import diagonal
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import expand_dims, matrix_transpose

Grads = Mapping[str, Callable[[], Tensor]]

_T = matrix_transpose


def conj_if_complex(x: Tensor) -> Tensor:
    """conj(x) for a complex x; x itself for a real one."""
    return conj(x) if x.dtype.is_complex else x


def constant_like(array: np.ndarray, like: Tensor) -> Tensor:
    """A numpy constant as a tensor of `like`'s dtype."""
    return asarray(array.astype(like.dtype.numpy))


def diag_matrices(v: Tensor) -> Tensor:
    """The diagonal matrices (..., K, K) with `v` (..., K) on their diagonals."""
    k = v.shape[-1]
    return multiply(expand_dims(v, axis=-1), constant_like(np.eye(k), v))


def _lower_read(g: Tensor) -> Tensor:
    """The gradient with respect to A of a function of S = tril(A, -1) + real(diag(A)) +
    tril(A, -1)^H (a kernel that reads A's lower triangle only, as a Hermitian matrix), given its
    gradient `g` with respect to S: (g + g^H) on the strict lower triangle, real(g) on the
    diagonal."""
    n = g.shape[-1]
    return multiply(add(g, _H(g)), constant_like(np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n), g))


def reciprocal_gaps(values: Tensor, square: bool) -> Tensor:
    """F with F[..., i, j] = 1 / (v_j - v_i) (1 / (v_j^2 - v_i^2) if `square`) off the diagonal
    and 0 on it (JAX's F of the eigh and svd rules)."""
    row, col = expand_dims(values, axis=-2), expand_dims(values, axis=-1)
    gaps = subtract(row, col)
    if square:
        gaps = multiply(gaps, add(row, col))
    off = constant_like(1.0 - np.eye(values.shape[-1]), values)
    safe = where(equal(off, 0.0), 1.0, gaps)
    return multiply(divide(off, safe), off)


def off_columns(x: Tensor, q: Tensor, s_row: Tensor) -> Tensor:
    """(x - Q Q^H x) / s: the part of `x` off the span of Q's orthonormal columns, its columns
    divided by the singular values (`s_row`, (..., 1, K)). Svd's rules add these terms when
    M > N (Q = U) or N > M (Q = V)."""
    return divide(subtract(x, matmul(q, matmul(_H(q), x))), s_row)


def reduced_svd_shape(u: Tensor, s: Tensor, vh: Tensor, rule: str) -> tuple[int, int]:
    """(M, N) of the matrices of an Svd's outputs `u`, `s`, `vh`; for full_matrices=True on
    non-square matrices an AutodiffError saying that Svd's `rule` (gradient, JVP) is undefined."""
    m, n = u.shape[-2], vh.shape[-1]
    k = s.shape[-1]
    if u.shape[-1] != k or vh.shape[-2] != k:
        raise AutodiffError(
            f"the {rule} of Svd with full_matrices=True is defined for square matrices only, got "
            f"{m} x {n}: the extra singular vectors are not unique. Use full_matrices=False (or "
            "tp.linalg.svdvals for the singular values alone).")
    return m, n


def reduced_qr_shape(q: Tensor, r: Tensor, mode: str, rule: str) -> tuple[int, int]:
    """(M, N) of the matrices of a Qr's outputs `q`, `r` in `mode`; unless M >= N in mode
    'reduced' (or square), an AutodiffError saying that Qr's `rule` (gradient, JVP) is undefined."""
    m, n = q.shape[-2], r.shape[-1]
    if m < n or q.shape[-1] != n:
        raise AutodiffError(
            f"the {rule} of Qr is defined for M >= N in mode 'reduced' (or square matrices), got "
            f"{m} x {n} matrices in mode '{mode}': Q's extra columns are not unique. Use "
            "mode='reduced' on matrices with at least as many rows as columns.")
    return m, n


@gradient("Cholesky", outputs=("out",))
def _cholesky(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """dL = L phi(L^-1 dS L^-H), phi: the lower triangle with half the diagonal; transposed:
    dS-bar = L^-H phi(L^H dL-bar) L^-1 (at conj(L)), then onto the lower triangle read."""
    (low,) = saved

    def grad() -> Tensor:
        n = low.shape[-1]
        lc = conj_if_complex(low)
        phi = constant_like(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), low)
        low_inv = inv(lc)
        inner = multiply(matmul(_H(lc), dy), phi)
        return _lower_read(matmul(_H(low_inv), matmul(inner, low_inv)))

    return {"x": grad}


@gradient("Eigh", outputs=("eigenvalues", "eigenvectors"))
def _eigh(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """dw = real(diag(V^H dS V)), dV = V (F o V^H dS V); transposed: dS-bar = V (diag(w-bar) +
    F o V^H V-bar) V^H (at conj(V); distinct eigenvalues)."""
    w, v = saved
    dw, dv = dy

    def grad() -> Tensor:
        vc = conj_if_complex(v)
        inner = add(diag_matrices(dw), multiply(reciprocal_gaps(w, False), matmul(_H(vc), dv)))
        return _lower_read(matmul(vc, matmul(inner, _H(vc))))

    return {"x": grad}


def _scaled_columns(m: Tensor, v: Tensor) -> Tensor:
    """m diag(v): the columns of the matrices `m` (..., M, K) scaled by `v` (..., K)."""
    return multiply(m, expand_dims(v, axis=-2))


@gradient("Eigvalsh", inputs=("x",))
def _eigvalsh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """Eigh's rule with no eigenvector cotangent: dS-bar = V diag(w-bar) V^H (at conj(V)), the
    eigenvectors computed here; then onto the lower triangle read."""
    (x,) = saved

    def grad() -> Tensor:
        vc = conj_if_complex(eigh(x).eigenvectors)
        return _lower_read(matmul(_scaled_columns(vc, dy), _H(vc)))

    return {"x": grad}


def eig_cotangent(x: Tensor, w: Tensor, v: Tensor, dw: Tensor, dv: Tensor | None) -> Tensor:
    """x-bar = V^-T (diag(w-bar) + (V^T V-bar - V^T conj(V) diag(re(diag(V^T V-bar)))) / E) V^T,
    E[i, j] = w_j - w_i off the diagonal and 1 on it (PyTorch's rule, conjugated into JAX's
    convention); its real part for a real x. `dv` None: the eigenvalues' term alone."""
    vt = _T(v)
    inner = diag_matrices(dw)
    if dv is not None:
        vt_dv = matmul(vt, dv)
        kept_norms = matmul(vt, _scaled_columns(conj(v), real(diagonal(vt_dv))))
        gaps = add(reciprocal_gaps(w, False), constant_like(np.eye(w.shape[-1]), w))
        inner = add(inner, multiply(subtract(vt_dv, kept_norms), gaps))
    out = solve(vt, matmul(inner, vt))
    return out if x.dtype.is_complex else real(out)


@gradient("Eig", inputs=("x",), outputs=("eigenvalues", "eigenvectors"))
def _eig(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, w, v = saved
    dw, dv = dy
    return {"x": lambda: eig_cotangent(x, w, v, dw, dv)}


@gradient("Eigvals", inputs=("x",))
def _eigvals(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """x-bar = V^-T diag(w-bar) V^T, the eigenvectors computed here (real part for a real x)."""
    (x,) = saved

    def grad() -> Tensor:
        w, v = eig(x)
        return eig_cotangent(x, w, v, dy, None)

    return {"x": grad}

@gradient("Inv", outputs=("out",))
def _inv(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """d(A^-1) = -A^-1 dA A^-1; transposed: A-bar = -X^T dy X^T for X = A^-1 (holomorphic)."""
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


@gradient("Slogdet", inputs=("x",), outputs=("sign",))
def _slogdet(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """With t = tr(A^-1 dA): d logabsdet = real(t), d sign = i imag(t) sign (JAX's rule; a real
    sign is locally constant); transposed: A-bar = (logabsdet-bar + i imag(sign-bar sign)) A^-T."""
    a, sign = saved
    dsign, dlog = dy

    def grad() -> Tensor:
        t_bar = dlog
        if a.dtype.is_complex:
            t_bar = add(t_bar, multiply(imag(multiply(dsign, sign)), 1j))
        return multiply(expand_dims(t_bar, axis=(-2, -1)), _T(inv(a)))

    return {"x": grad}


@gradient("Det", inputs=("x",), outputs=("out",))
def _det(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """d det A = det A tr(A^-1 dA): A-bar = dy det(A) A^-T (A invertible)."""
    a, d = saved
    return {"x": lambda: multiply(expand_dims(multiply(dy, d), axis=(-2, -1)), _T(inv(a)))}


@gradient("Qr", outputs=("q", "r"))
def _qr(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """JAX's QR rule transposed (M >= N, Q of shape (M, N)): with X = triu(R-bar R^T - Q^T
    Q-bar) and S = X + X^H - real(diag(X)), A-bar = (Q-bar + conj(Q) S) R^-T."""
    q, r = saved
    dq, dr = dy
    _, n = reduced_qr_shape(q, r, attrs["mode"], "gradient")

    def grad() -> Tensor:
        upper = constant_like(np.triu(np.ones((n, n))), r)
        x = multiply(subtract(matmul(dr, _T(r)), matmul(_T(q), dq)), upper)
        x_diag = real(diagonal(x)) if x.dtype.is_complex else diagonal(x)
        s = subtract(add(x, _H(x)), diag_matrices(x_diag))
        return _T(solve(r, _T(add(dq, matmul(conj_if_complex(q), s)))))

    return {"x": grad}


@gradient("Svdvals", inputs=("x",))
def _svdvals(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """Svd's rule with no singular vector cotangents: A-bar = U diag(S-bar) Vh (at conj(U),
    conj(Vh); any shape), the reduced singular vectors computed here."""
    (x,) = saved

    def grad() -> Tensor:
        u, _, vh = svd(x, full_matrices=False)
        return matmul(_scaled_columns(conj_if_complex(u), dy), conj_if_complex(vh))

    return {"x": grad}


@gradient("Svd", outputs=("u", "s", "vh"))
def _svd(dy: tuple[Tensor, Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """JAX's SVD rule transposed (distinct, nonzero singular values), at conj(U), conj(Vh):
    with F[i, j] = 1 / (s_j^2 - s_i^2), J = F o U^H U-bar and K = F o V^H V-bar, A-bar =
    U (diag(s-bar) + (J + J^H) S + S (K + K^H) + i imag(diag(U^H U-bar)) / S) V^H, plus the parts
    of U-bar (V-bar) off U's (V's) columns when M > N (N > M)."""
    u, s, vh = saved
    du, ds, dvh = dy
    m, n = reduced_svd_shape(u, s, vh, "gradient")

    def grad() -> Tensor:
        uc, vhc = conj_if_complex(u), conj_if_complex(vh)
        v, dv = _H(vhc), _H(dvh)
        f = reciprocal_gaps(s, True)
        uh_du = matmul(_H(uc), du)
        j = multiply(f, uh_du)
        kk = multiply(f, matmul(vhc, dv))
        s_row = expand_dims(s, axis=-2)  # (..., 1, K): scales columns
        s_col = expand_dims(s, axis=-1)  # (..., K, 1): scales rows
        core = add(diag_matrices(ds), add(multiply(add(j, _H(j)), s_row), multiply(s_col, add(kk, _H(kk)))))
        if u.dtype.is_complex:  # the phase of each pair of singular vectors (JAX's dUdV_diag)
            core = add(core, diag_matrices(multiply(divide(imag(diagonal(uh_du)), s), 1j)))
        out = matmul(uc, matmul(core, vhc))
        if m > n:
            out = add(out, matmul(off_columns(du, uc, s_row), vhc))
        if n > m:
            out = add(out, matmul(uc, _H(off_columns(dv, v, s_row))))
        return out

    return {"x": grad}
