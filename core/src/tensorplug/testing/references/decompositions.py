"""References of the decompositions and solvers: numpy.linalg's values for Cholesky, Inv,
Solve, Slogdet and Det; for Eigh, Qr and Svd, whose vectors' signs are the library's choice,
what the outputs must satisfy (eigenvalues and singular values as numpy's, reconstruction,
orthonormal vectors, triangular R). Inputs are well conditioned: symmetric positive-definite
matrices for Cholesky and Eigh, random ones plus a multiple of the identity for the solvers,
batched, with 1x1 and empty matrices. Cases whose gradient is not defined (Qr and Svd beyond
the reduced, M >= N shapes) carry a label, so the gradient check leaves them out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...dtypes import DType, float32, from_numpy_dtype
from ...errors import ShapeError
from ...kernel_spec import KernelSpec
from ..inputs import Case, accepted, sample
from ._base import Reference as _Reference
from ._base import reference, register_reference
from .manipulation import BadTable, table_bad

_SQUARE = [(3, 3), (2, 2, 2), (1, 1), (2, 0, 0)]
_RECT = [(3, 2), (2, 3), (2, 3, 3), (1, 1), (2, 1, 0)]
_NO_GRADIENT = "no gradient here"

Rerun = Callable[[dict[str, Any]], Sequence[np.ndarray]]


def _general(shape: tuple[int, ...], d: DType, key: Any) -> np.ndarray:
    n = shape[-1]
    return (sample(shape, d, key=key).astype(np.float64) + n * np.eye(n)).astype(d.numpy)


def _spd(shape: tuple[int, ...], d: DType, key: Any) -> np.ndarray:
    a = sample(shape, d, key=key).astype(np.float64)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(d.numpy)


Maker = Callable[[tuple[int, ...], DType, Any], np.ndarray]


def _square_cases(make: Maker) -> Callable[[KernelSpec], list[Case]]:
    def cases(spec: KernelSpec) -> list[Case]:
        return [Case((make(s, d, (spec.name, i)),))
                for d in accepted(spec, "x") for i, s in enumerate(_SQUARE)]
    return cases


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
    tol = 2e-4 if from_numpy_dtype(np.dtype(dtype)) is float32 else 1e-9
    got, want = np.asarray(got, np.float64), np.broadcast_to(np.asarray(want, np.float64), np.shape(got))
    if got.size and not np.allclose(got, want, rtol=tol, atol=tol):
        return f"{name}: off by up to {np.abs(got - want).max():.3g} (tolerance {tol:g})"
    return None


def _orthonormal(name: str, m: np.ndarray, dtype: Any, columns: bool = True) -> str | None:
    m = np.asarray(m, np.float64)
    gram = np.swapaxes(m, -1, -2) @ m if columns else m @ np.swapaxes(m, -1, -2)
    return _off(f"{name} is not orthonormal ({'columns' if columns else 'rows'})", gram,
                np.eye(gram.shape[-1]), dtype)


def _first(*problems: str | None) -> str | None:
    return next((p for p in problems if p), None)


def _eigh(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    w, v = outputs
    low = np.tril(x.astype(np.float64)) + np.swapaxes(np.tril(x.astype(np.float64), -1), -1, -2)
    return _first(_off("eigenvalues (ascending, of the lower triangle mirrored)", w,
                       np.linalg.eigvalsh(low), x.dtype),
                  _orthonormal("eigenvectors", v, x.dtype),
                  _off("x @ eigenvectors != eigenvectors * eigenvalues", low @ v, v * w[..., None, :],
                       x.dtype))


def _qr(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    q, r = outputs
    return _first(_off("Q @ R != x", np.asarray(q, np.float64) @ r, x, x.dtype),
                  _orthonormal("Q", q, x.dtype),
                  _off("R is not upper triangular", np.tril(r, -1), 0.0, x.dtype))


def _svd(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    (x,) = case.inputs
    u, s, vh = outputs
    k = s.shape[-1]
    rebuilt = (np.asarray(u[..., :k], np.float64) * s[..., None, :]) @ vh[..., :k, :]
    want_s = np.linalg.svd(x.astype(np.float64), compute_uv=False)
    return _first(_off("S (descending)", s, want_s, x.dtype),
                  _off("U diag(S) Vh != x", rebuilt, x, x.dtype),
                  _orthonormal("U", u, x.dtype), _orthonormal("Vh", vh, x.dtype, columns=False))


register_reference(_Reference("Eigh", _square_cases(_spd), check=_eigh, bad_cases=table_bad(_SQUARE_BAD)))
register_reference(_Reference(
    "Qr", _rect_cases("mode", ("reduced", "complete"),
                      lambda s, mode: s[-2] >= s[-1] and (mode == "reduced" or s[-2] == s[-1])),
    check=_qr,
    bad_cases=table_bad(_QR_BAD)))
register_reference(_Reference(
    "Svd", _rect_cases("full_matrices", (False, True), lambda s, full: not full or s[-2] == s[-1]),
    check=_svd, bad_cases=table_bad(_MATRIX_BAD)))
