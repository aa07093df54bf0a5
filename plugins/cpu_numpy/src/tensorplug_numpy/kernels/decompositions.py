"""Matrix decompositions and solvers (np.linalg, LAPACK): Cholesky, Eigh, Eigvalsh, Eig, Eigvals,
Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det, batched over the leading axes.

np.linalg raises LinAlgError for a matrix it cannot factor (or, for Svd, one holding NaN); the
kernel specs ask for a NaN-filled result for that matrix instead (what the JAX backend gives,
also under tp.jit). Inv and Solve find the singular matrices as LAPACK's LU does (Slogdet's
sign 0: an exact zero pivot) and solve the others; Cholesky and Svd factor the matrices one at
a time only once the batched call has failed. Eig and Eigvals refuse matrices holding NaN or
inf (LAPACK would not converge): those give NaN, the others are computed, always complex.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np

_LinAlgError = np.linalg.LinAlgError
_COMPLEX_NAN = complex(np.nan, np.nan)
_SVD: Callable[..., Any] = np.linalg.svd  # (its overloads want a literal compute_uv)


def cholesky(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    (x,) = inputs
    try:
        return np.linalg.cholesky(x)
    except _LinAlgError:
        pass
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.full(flat.shape, np.nan, x.dtype)
    for i, matrix in enumerate(flat):  # (the failure path only: one matrix at a time)
        with contextlib.suppress(_LinAlgError):
            out[i] = np.linalg.cholesky(matrix)
    return out.reshape(x.shape)


def _singular(a: Any) -> Any:
    """Where the LU factorization of each matrix of `a` has a zero pivot (batch shape)."""
    return np.linalg.slogdet(a)[0] == 0


def _solve_regular(a: Any, b: Any, solve: Callable[[Any, Any], Any]) -> Any:
    """solve(a, b), NaN for the matrices of `a` that are singular (they are solved as identities)."""
    try:
        return solve(a, b)
    except _LinAlgError:
        pass
    singular = _singular(a)[..., None, None]
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    out = solve(np.where(singular, eye, a), b)
    return np.where(singular, np.asarray(np.nan, a.dtype), out)


def inv(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    (x,) = inputs
    return _solve_regular(x, None, lambda a, _: np.linalg.inv(a))


def solve(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    a, b = inputs
    if a.ndim < 2 or b.ndim < 2:  # np.linalg.solve takes a 1-d b as a vector; the spec refuses it
        raise ValueError(f"Solve needs a (..., M, M) and b (..., M, K), got {a.shape} and {b.shape}")
    return _solve_regular(a, b, np.linalg.solve)


def eigh(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    w, v = np.linalg.eigh(inputs[0], UPLO="L")
    return w, v


def eigvalsh(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.linalg.eigvalsh(inputs[0], UPLO="L")


def _eig(x: Any, vectors: bool) -> tuple[Any, Any | None]:
    """np.linalg.eig (eigvals without `vectors`) as complex arrays; NaN (in both parts, as jax)
    for the matrices holding NaN or inf (computed as zeros) or that LAPACK does not converge on
    (one at a time, then)."""
    complex_type = np.result_type(x.dtype, np.complex64)
    bad = ~np.isfinite(x).all(axis=(-2, -1))
    if bad.any():
        x = np.where(bad[..., None, None], np.zeros((), x.dtype), x)
    n = x.shape[-1]
    w = np.full(x.shape[:-1], _COMPLEX_NAN, complex_type)
    v = np.full(x.shape, _COMPLEX_NAN, complex_type) if vectors else None
    try:
        if vectors:
            w[...], v[...] = np.linalg.eig(x)  # type: ignore[index]
        else:
            w[...] = np.linalg.eigvals(x)
    except _LinAlgError:
        flat_w, flat_v = w.reshape(-1, n), None if v is None else v.reshape(-1, n, n)
        for i, matrix in enumerate(x.reshape(-1, n, n)):  # (the failure path only)
            with contextlib.suppress(_LinAlgError):
                if flat_v is not None:
                    flat_w[i], flat_v[i] = np.linalg.eig(matrix)
                else:
                    flat_w[i] = np.linalg.eigvals(matrix)
    if bad.any():
        w[bad] = _COMPLEX_NAN
        if v is not None:
            v[bad] = _COMPLEX_NAN
    return w, v


def eig(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    return _eig(inputs[0], vectors=True)


def eigvals(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return _eig(inputs[0], vectors=False)[0]


def qr(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    q, r = np.linalg.qr(inputs[0], mode=attrs["mode"])
    return q, r


def _svd_or_nan(x: Any, full_matrices: bool, compute_uv: bool) -> Any:
    """np.linalg.svd, with NaN-filled results for the matrices LAPACK does not converge on (one
    holding NaN): matrices are factored one at a time only once the batched call has failed."""
    try:
        return _SVD(x, full_matrices=full_matrices, compute_uv=compute_uv)
    except _LinAlgError:
        pass
    m, n = x.shape[-2:]
    k = min(m, n)
    real = np.finfo(x.dtype).dtype  # the singular values' dtype (real for complex x)
    parts_of: list[tuple[tuple[int, ...], Any]] = [((k,), real)]
    if compute_uv:
        parts_of = [((m, m if full_matrices else k), x.dtype), ((k,), real),
                    ((n if full_matrices else k, n), x.dtype)]
    flat = x.reshape((-1, m, n))
    outs = [np.full((len(flat),) + shape, np.nan, dtype) for shape, dtype in parts_of]
    for i, matrix in enumerate(flat):  # (the failure path only)
        with contextlib.suppress(_LinAlgError):
            parts = _SVD(matrix, full_matrices=full_matrices, compute_uv=compute_uv)
            for out, part in zip(outs, parts if compute_uv else (parts,)):
                out[i] = part
    shaped = [out.reshape(x.shape[:-2] + shape) for out, (shape, _) in zip(outs, parts_of)]
    return tuple(shaped) if compute_uv else shaped[0]


def svd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any, Any]:
    u, s, vh = _svd_or_nan(inputs[0], attrs["full_matrices"], compute_uv=True)
    return u, s, vh


def svdvals(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return _svd_or_nan(inputs[0], False, compute_uv=False)


def slogdet(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    sign, logabsdet = np.linalg.slogdet(inputs[0])
    return np.asarray(sign), np.asarray(logabsdet)


def det(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.asarray(np.linalg.det(inputs[0]))


KERNELS: dict[str, Callable[..., Any]] = {
    "Cholesky": cholesky,
    "Eigh": eigh,
    "Eigvalsh": eigvalsh,
    "Eig": eig,
    "Eigvals": eigvals,
    "Inv": inv,
    "Qr": qr,
    "Svd": svd,
    "Svdvals": svdvals,
    "Solve": solve,
    "Slogdet": slogdet,
    "Det": det,
}
