"""References of the decompositions and solvers: numpy.linalg's values for Cholesky, Eigvalsh,
Inv, Svdvals, Solve, Slogdet and Det; for Eigh, Qr and Svd, whose vectors' signs are the library's choice,
and Eig and Eigvals, whose order is too, what the outputs must satisfy (eigenvalues and singular
values as numpy's, in any order for Eig's, reconstruction, orthonormal or unit vectors,
triangular R). Inputs are well conditioned: symmetric (Hermitian, for
complex dtypes) positive-definite matrices for Cholesky and Eigh, random ones plus a multiple of
the identity for the solvers, batched, with 1x1 and empty matrices. Cases whose gradient is not
defined (Qr and Svd beyond the reduced, M >= N shapes) carry a label, so the gradient check
leaves them out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, float32, from_numpy_dtype, real_of
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import Case, accepted, sample
from tensorplug.testing.references._base import Reference as _Reference
from tensorplug.testing.references._base import reference, register_reference
from tensorplug.testing.references.manipulation import BadTable, table_bad

_SQUARE = [(3, 3), (2, 2, 2), (1, 1), (2, 0, 0)]
_RECT = [(3, 2), (2, 3), (2, 3, 3), (1, 1), (2, 1, 0)]
_NO_GRADIENT = "no gradient here"

Rerun = Callable[[dict[str, Any]], Sequence[np.ndarray]]


def _wide(a: Any) -> np.ndarray:
    """`a` in double precision, complex128 for a complex `a`."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _h(a: np.ndarray) -> np.ndarray:
    """The conjugate transpose of each matrix of `a`."""
    return np.conj(np.swapaxes(a, -1, -2))


def _general(shape: tuple[int, ...], d: DType, key: Any) -> np.ndarray:
    n = shape[-1]
    return (_wide(sample(shape, d, key=key)) + n * np.eye(n)).astype(d.numpy)


def _spd(shape: tuple[int, ...], d: DType, key: Any) -> np.ndarray:
    a = _wide(sample(shape, d, key=key))
    return (a @ _h(a) + shape[-1] * np.eye(shape[-1])).astype(d.numpy)


Maker = Callable[[tuple[int, ...], DType, Any], np.ndarray]


def _square_cases(make: Maker) -> Callable[[KernelSpec], list[Case]]:
    def cases(spec: KernelSpec) -> list[Case]:
        return [Case((make(s, d, (spec.name, i)),))
                for d in accepted(spec, "x") for i, s in enumerate(_SQUARE)]
    return cases


def _matrix_cases(spec: KernelSpec) -> list[Case]:
    return [Case((sample(s, d, key=(spec.name, i)),))
            for d in accepted(spec, "x") for i, s in enumerate(_RECT)]


def _solve_cases(spec: KernelSpec) -> list[Case]:
    pairs = [((3, 3), (3, 2)), ((2, 2, 2), (2, 1)), ((2, 1, 3, 3), (2, 3, 1)), ((1, 1), (1, 3)),
             ((0, 0), (0, 2))]
    return [Case((_general(a, d, (spec.name, i)), sample(b, d, key=(spec.name, i, "b"))))
            for d in accepted(spec, "a") for i, (a, b) in enumerate(pairs)]


def _rect_cases(attr: str, values: Sequence[Any], differentiable: Callable[[tuple[int, ...], Any], bool]
                ) -> Callable[[KernelSpec], list[Case]]:
    def cases(spec: KernelSpec) -> list[Case]:
        return [Case((sample(s, d, key=(spec.name, i)),), {attr: v},
                     label="" if differentiable(s, v) else _NO_GRADIENT)
                for d in accepted(spec, "x") for i, s in enumerate(_RECT) for v in values]
    return cases


_SQUARE_BAD: BadTable = [([(2, 3)], {}, ShapeError, "a non-square matrix"),
                         ([(3,)], {}, ShapeError, "a vector (fewer than 2 dimensions)")]
_MATRIX_BAD: BadTable = [([(3,)], {}, ShapeError, "a vector (fewer than 2 dimensions)")]
_QR_BAD: BadTable = [*_MATRIX_BAD, ([(2, 2)], {"mode": "full"}, ShapeError, "an unknown mode")]
_SOLVE_BAD: BadTable = [([(3, 3), (2, 1)], {}, ShapeError, "a right-hand side of the wrong height"),
                        ([(2, 3), (2, 1)], {}, ShapeError, "a non-square matrix"),
                        ([(2, 2, 2), (3, 2, 1)], {}, ShapeError, "batch axes that do not broadcast"),
                        ([(2, 2), (2,)], {}, ShapeError, "a 1-d right-hand side (tp.linalg.solve takes it)")]


reference("Cholesky", _square_cases(_spd), table_bad(_SQUARE_BAD))(lambda x: np.linalg.cholesky(x))
reference("Eigvalsh", _square_cases(_spd), table_bad(_SQUARE_BAD), rtol={"float32": 1e-4})(
    lambda x: np.linalg.eigvalsh(x, UPLO="L"))
reference("Svdvals", _matrix_cases, table_bad(_MATRIX_BAD), rtol={"float32": 1e-4}, atol={"float32": 1e-5})(
    lambda x: np.linalg.svd(x, compute_uv=False))
reference("Inv", _square_cases(_general), table_bad(_SQUARE_BAD), rtol={"float32": 1e-4})(
    lambda x: np.linalg.inv(x))
reference("Det", _square_cases(_general), table_bad(_SQUARE_BAD), rtol={"float32": 1e-4})(
    lambda x: np.linalg.det(x))
reference("Slogdet", _square_cases(_general), table_bad(_SQUARE_BAD), rtol={"float32": 1e-4},
          atol={"float32": 1e-4})(lambda x: tuple(np.linalg.slogdet(x)))
reference("Solve", _solve_cases, table_bad(_SOLVE_BAD), rtol={"float32": 1e-4}, atol={"float32": 1e-5})(
    lambda a, b: np.linalg.solve(a, b))


# -- the decompositions with sign choices: properties ------------------------------------------
def _off(name: str, got: np.ndarray, want: Any, dtype: Any) -> str | None:
    d = from_numpy_dtype(np.dtype(dtype))
    tol = 2e-4 if (real_of(d) if d.is_complex else d) is float32 else 1e-9
    got, want = _wide(got), np.broadcast_to(_wide(want), np.shape(got))
    if got.size and not np.allclose(got, want, rtol=tol, atol=tol):
        return f"{name}: off by up to {np.abs(got - want).max():.3g} (tolerance {tol:g})"
    return None


def _orthonormal(name: str, m: np.ndarray, dtype: Any, columns: bool = True) -> str | None:
    m = _wide(m)
    gram = _h(m) @ m if columns else m @ _h(m)
    return _off(f"{name} is not orthonormal ({'columns' if columns else 'rows'})", gram,
                np.eye(gram.shape[-1]), dtype)


def _first(*problems: str | None) -> str | None:
    return next((p for p in problems if p), None)


def _eigh(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    w, v = outputs
    strict = np.tril(_wide(x), -1)  # what Eigh reads: the lower triangle, as a Hermitian matrix
    diagonal = np.real(np.diagonal(x, axis1=-2, axis2=-1))[..., None, :] * np.eye(x.shape[-1])
    low = strict + _h(strict) + diagonal
    return _first(_off("eigenvalues (ascending, of the lower triangle mirrored)", w,
                       np.linalg.eigvalsh(low), x.dtype),
                  _orthonormal("eigenvectors", v, x.dtype),
                  _off("x @ eigenvectors != eigenvectors * eigenvalues", low @ v, v * w[..., None, :],
                       x.dtype))


def _same_values(name: str, got: np.ndarray, want: np.ndarray, dtype: Any) -> str | None:
    """The eigenvalues `got` are `want` (numpy's), in any order: each matches its nearest."""
    got, want = _wide(got), _wide(want)
    if not got.size:
        return None
    d = from_numpy_dtype(np.dtype(dtype))
    tol = 2e-4 if (real_of(d) if d.is_complex else d) is float32 else 1e-9
    apart = np.abs(got[..., :, None] - want[..., None, :])
    worst = max(apart.min(axis=-1).max(), apart.min(axis=-2).max())
    scale = 1 + np.abs(want).max()
    if not worst <= tol * scale:
        return f"{name}: {worst:.3g} away from numpy's (tolerance {tol * scale:g})"
    return None


def _eigvals(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    return _same_values("eigenvalues (any order)", outputs[0], np.linalg.eigvals(_wide(x)), x.dtype)


def _eig(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    w, v = outputs
    norms = np.linalg.norm(_wide(v), axis=-2)
    return _first(_same_values("eigenvalues (any order)", w, np.linalg.eigvals(_wide(x)), x.dtype),
                  _off("eigenvectors are not of unit norm", norms, 1.0, x.dtype),
                  _off("x @ eigenvectors != eigenvectors * eigenvalues", _wide(x) @ v,
                       _wide(v) * w[..., None, :], x.dtype))


def _qr(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    q, r = outputs
    return _first(_off("Q @ R != x", _wide(q) @ r, x, x.dtype),
                  _orthonormal("Q", q, x.dtype),
                  _off("R is not upper triangular", np.tril(r, -1), 0.0, x.dtype))


def _svd(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    u, s, vh = outputs
    k = s.shape[-1]
    rebuilt = (_wide(u[..., :k]) * s[..., None, :]) @ vh[..., :k, :]
    want_s = np.linalg.svd(_wide(x), compute_uv=False)
    return _first(_off("S (descending)", s, want_s, x.dtype),
                  _off("U diag(S) Vh != x", rebuilt, x, x.dtype),
                  _orthonormal("U", u, x.dtype), _orthonormal("Vh", vh, x.dtype, columns=False))


register_reference(_Reference("Eigh", _square_cases(_spd), check=_eigh, bad_cases=table_bad(_SQUARE_BAD)))
register_reference(_Reference("Eig", _square_cases(_general), check=_eig, bad_cases=table_bad(_SQUARE_BAD)))
register_reference(_Reference("Eigvals", _square_cases(_general), check=_eigvals,
                              bad_cases=table_bad(_SQUARE_BAD)))
register_reference(_Reference(
    "Qr", _rect_cases("mode", ("reduced", "complete"),
                      lambda s, mode: s[-2] >= s[-1] and (mode == "reduced" or s[-2] == s[-1])),
    check=_qr,
    bad_cases=table_bad(_QR_BAD)))
register_reference(_Reference(
    "Svd", _rect_cases("full_matrices", (False, True), lambda s, full: not full or s[-2] == s[-1]),
    check=_svd, bad_cases=table_bad(_MATRIX_BAD)))
