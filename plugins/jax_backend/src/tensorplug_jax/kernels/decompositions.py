"""Matrix decompositions and solvers (jax.lax.linalg, LAPACK on CPU): Cholesky, Eigh, Eigvalsh,
Eig, Eigvals, Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det, batched over the leading axes, each one compiled
function.

Cholesky, Eigh and Eigvalsh read the lower triangle, as the numpy backend does (jax's own default
symmetrizes the input first). A matrix a kernel cannot factor gives a NaN-filled result for
that matrix (the kernel specs' rule): Inv and Solve call a matrix singular when its LU
factorization has a zero pivot, as LAPACK's solver does on the numpy backend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from tensorplug_jax.kernels._jit import with_attrs


def _nan_where(bad: Any, out: Any) -> Any:
    """`out` with the matrices flagged in `bad` (batch shape) replaced by NaN."""
    return jnp.where(bad[..., None, None], jnp.asarray(jnp.nan, out.dtype), out)


def _cholesky(x: Any) -> Any:
    low = lax.linalg.cholesky(x, symmetrize_input=False)
    return _nan_where(jnp.isnan(low).any(axis=(-2, -1)), low)


def _lu_solve(a: Any, b: Any) -> Any:
    """X with A X = B (batch axes broadcast), NaN for singular A: one LU factorization, then two
    triangular solves."""
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    lu, _, perm = lax.linalg.lu(a)
    pb = jnp.take_along_axis(b, perm[..., None], axis=-2)
    y = lax.linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    x = lax.linalg.triangular_solve(lu, y, left_side=True, lower=False)
    singular = (jnp.diagonal(lu, axis1=-2, axis2=-1) == 0).any(axis=-1)
    return _nan_where(singular, x)


def _inv(x: Any) -> Any:
    return _lu_solve(x, jnp.broadcast_to(jnp.eye(x.shape[-1], dtype=x.dtype), x.shape))


def _solve(a: Any, b: Any) -> Any:
    if a.ndim < 2 or b.ndim < 2:  # the spec refuses a 1-d b (tp.linalg.solve handles it)
        raise ValueError(f"Solve needs a (..., M, M) and b (..., M, K), got {a.shape} and {b.shape}")
    return _lu_solve(a, b)


def _eigh(x: Any) -> tuple[Any, Any]:
    v, w = lax.linalg.eigh(x, lower=True, symmetrize_input=False)
    return w, v


def _eigvalsh(x: Any) -> Any:
    """jnp.linalg.eigvalsh's way: jax's eigh has no values-only mode, the vectors are dropped."""
    _, w = lax.linalg.eigh(x, lower=True, symmetrize_input=False)
    return w


def _eig(x: Any) -> tuple[Any, Any]:
    """jnp.linalg.eig (LAPACK's geev: on the CPU only, as jax has it), complex outputs."""
    w, v = jnp.linalg.eig(x)
    return w, v


def _qr(x: Any, mode: str) -> tuple[Any, Any]:
    q, r = jnp.linalg.qr(x, mode=mode)
    return q, r


def _svd(x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
    u, s, vh = jnp.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh


def _svdvals(x: Any) -> Any:
    return lax.linalg.svd(x, full_matrices=False, compute_uv=False)


def _slogdet(x: Any) -> tuple[Any, Any]:
    sign, logabsdet = jnp.linalg.slogdet(x)
    return sign, logabsdet


KERNELS: dict[str, Callable[..., Any]] = {
    "Cholesky": with_attrs(_cholesky),
    "Eigh": with_attrs(_eigh),
    "Eigvalsh": with_attrs(_eigvalsh),
    "Eig": with_attrs(_eig),
    "Eigvals": with_attrs(jnp.linalg.eigvals),
    "Inv": with_attrs(_inv),
    "Qr": with_attrs(_qr, ("mode",)),
    "Svd": with_attrs(_svd, ("full_matrices",)),
    "Svdvals": with_attrs(_svdvals),
    "Solve": with_attrs(_solve),
    "Slogdet": with_attrs(_slogdet),
    "Det": with_attrs(jnp.linalg.det),
}
