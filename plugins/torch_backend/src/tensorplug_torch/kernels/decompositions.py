"""Matrix decompositions and solvers (``torch.linalg``, LAPACK): Cholesky, Eigh, Eigvalsh, Eig,
Eigvals, Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det, batched over the leading axes.

The kernel specs ask for a NaN-filled result for a matrix that cannot be factored (what the
numpy and JAX backends give): Cholesky, Inv and Solve use torch's ``_ex`` functions, whose
``info`` names those matrices (Inv and Solve: an exact zero pivot of LU, as LAPACK finds it; they
are solved as identities, then NaN-filled). Eig and Eigvals refuse matrices holding NaN or inf
(LAPACK would not converge): those give NaN, the others are computed, always complex. Svd and
Svdvals factor the matrices one at a time only once the batched call has failed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]

_NAN = float("nan")


def _nan_where(bad: torch.Tensor, out: torch.Tensor, batch_dims: int = 2) -> torch.Tensor:
    """`out` with NaN in the results of the matrices `bad` (batch-shaped) marks."""
    return out.masked_fill(bad.reshape(*bad.shape, *(1,) * batch_dims), _NAN) if bool(bad.any()) else out


def _linalg(fn: Callable[..., Any], **keywords: Any) -> Callable[..., Any]:
    """The kernel calling ``fn(*inputs, **keywords)``, its tuple of results as a plain tuple."""

    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> Any:
        out = fn(*inputs, **keywords)
        return out if isinstance(out, torch.Tensor) else tuple(out)

    kernel.__name__ = fn.__name__
    return kernel


def _qr(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> tuple[torch.Tensor, torch.Tensor]:
    q, r = torch.linalg.qr(inputs[0], mode=attrs["mode"])
    return q, r


def cholesky(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    lower, info = torch.linalg.cholesky_ex(inputs[0])
    return _nan_where(info != 0, lower)


def _regular(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """`a` with its singular matrices (an exact zero pivot of LU) replaced by identities, and where."""
    singular = torch.linalg.lu_factor_ex(a).info != 0
    if bool(singular.any()):
        eye = torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)
        a = torch.where(singular[..., None, None], eye, a)
    return a, singular


def inv(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    out, info = torch.linalg.inv_ex(inputs[0])
    if not bool((info != 0).any()):
        return out
    a, singular = _regular(inputs[0])
    return _nan_where(singular, torch.linalg.inv(a))


def solve(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    a, b = inputs
    if a.ndim < 2 or b.ndim < 2:  # (torch takes a 1-d b as a vector; the spec refuses it)
        raise ValueError(f"Solve needs a (..., M, M) and b (..., M, K), got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    # batch axes broadcast first: with a's ndim, torch reads b as matrices, never as vectors
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:])
    out, info = torch.linalg.solve_ex(a, b)
    if not bool((info != 0).any()):
        return out
    regular, singular = _regular(a)
    return _nan_where(singular, torch.linalg.solve(regular, b))


def _eig(x: torch.Tensor, vectors: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """torch.linalg.eig (eigvals without `vectors`), NaN (both parts) for the matrices holding
    NaN or inf (computed as zeros)."""
    bad = ~torch.isfinite(x).all(dim=-1).all(dim=-1)
    if bool(bad.any()):
        x = torch.where(bad[..., None, None], torch.zeros((), dtype=x.dtype, device=x.device), x)
    if vectors:
        w, v = torch.linalg.eig(x)
        return _nan_where(bad, w, 1), _nan_where(bad, v)
    return _nan_where(bad, torch.linalg.eigvals(x), 1), None


def eig(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> tuple[torch.Tensor, torch.Tensor]:
    w, v = _eig(inputs[0], vectors=True)
    assert v is not None
    return w, v


def eigvals(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    return _eig(inputs[0], vectors=False)[0]


def _svd_or_nan(x: torch.Tensor, full_matrices: bool, compute_uv: bool) -> tuple[torch.Tensor, ...]:
    """torch.linalg.svd (or svdvals), with NaN-filled results for the matrices LAPACK does not
    converge on (one holding NaN): matrices are factored one at a time only once the batched
    call has failed."""

    def factor(a: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if compute_uv:
            return tuple(torch.linalg.svd(a, full_matrices=full_matrices))
        return (torch.linalg.svdvals(a),)

    try:
        return factor(x)
    except RuntimeError:  # (torch.linalg.LinAlgError: 'the algorithm failed to converge')
        pass
    flat = x.reshape(-1, *x.shape[-2:])
    shapes_of = factor(torch.zeros_like(flat[:1]))  # (the parts' shapes and dtypes, of one matrix)
    outs = [torch.full((len(flat), *p.shape[1:]), _NAN, dtype=p.dtype, device=x.device) for p in shapes_of]
    for i, matrix in enumerate(flat):  # (the failure path only)
        try:
            parts = factor(matrix)
        except RuntimeError:
            continue
        for out, part in zip(outs, parts):
            out[i] = part
    return tuple(out.reshape(*x.shape[:-2], *out.shape[1:]) for out in outs)


def svd(inputs: list[torch.Tensor], attrs: dict[str, Any],
        backend: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    u, s, vh = _svd_or_nan(inputs[0], attrs["full_matrices"], compute_uv=True)
    return u, s, vh


def svdvals(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    return _svd_or_nan(inputs[0], False, compute_uv=False)[0]


KERNELS: dict[str, Callable[..., Any]] = {
    "Cholesky": cholesky,
    "Eigh": _linalg(torch.linalg.eigh, UPLO="L"),
    "Eigvalsh": _linalg(torch.linalg.eigvalsh, UPLO="L"),
    "Eig": eig,
    "Eigvals": eigvals,
    "Inv": inv,
    "Qr": _qr,
    "Svd": svd,
    "Svdvals": svdvals,
    "Solve": solve,
    "Slogdet": _linalg(torch.linalg.slogdet),
    "Det": _linalg(torch.linalg.det),
}
