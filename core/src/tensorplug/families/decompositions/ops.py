"""The decompositions and solvers of ``tp.linalg`` (Python Array API names): cholesky, eigh,
eigvalsh, eig, eigvals, inv, qr, svd, svdvals, solve, slogdet, det.

Inputs must be floating stacks of matrices (..., M, N), real or complex (the standard's
"floating-point"); integer and bool inputs are refused (array-api-strict does the same), as
are fewer than 2 dimensions and non-square matrices where the function needs square ones. A
matrix the kernel cannot factor (singular, or not positive definite for cholesky) gives NaN for
that matrix, on every backend. Complex
matrices are Hermitian where real ones are symmetric (cholesky, eigh); eigenvalues, singular
values and slogdet's logabsdet are real; eig's and eigvals' results are complex.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, caller, convert_pair
from tensorplug.families.decompositions.spec import (
    LAPACK_DTYPES,
    QR_MODES,
    matrix_shape,
    solve_shape,
    square_shape,
)
from tensorplug.families.elementwise.ops import conj
from tensorplug.families.manipulation.ops import matrix_transpose, reshape

__all__ = ["conj_transpose", "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky",
           "det", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "qr", "slogdet", "solve", "svd", "svdvals"]


class EighResult(NamedTuple):
    """What tp.linalg.eigh returns: eigenvalues (..., M), ascending, and eigenvectors (..., M, M)."""

    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    """What tp.linalg.eig returns: eigenvalues (..., M) and eigenvectors (..., M, M), complex."""

    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    """What tp.linalg.qr returns: Q with orthonormal columns and upper-triangular R."""

    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    """What tp.linalg.slogdet returns: the determinant's sign and the log of its absolute value."""

    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    """What tp.linalg.svd returns: U, the singular values S (descending) and Vh."""

    U: Tensor
    S: Tensor
    Vh: Tensor


_CHOLESKY = caller("Cholesky")
_EIGH = caller("Eigh")
_EIGVALSH = caller("Eigvalsh")
_EIG = caller("Eig")
_EIGVALS = caller("Eigvals")
_INV = caller("Inv")
_SVDVALS = caller("Svdvals")
_SOLVE = caller("Solve")
_SLOGDET = caller("Slogdet")
_DET = caller("Det")
_QR = {mode: caller("Qr", {"mode": mode}) for mode in QR_MODES}
_SVD = {full: caller("Svd", {"full_matrices": full}) for full in (False, True)}


def floating(x: Tensor, op: str) -> Tensor:
    """`x` if it has a floating dtype, real or complex; DTypeError naming `op` otherwise."""
    if not x._dtype.is_inexact:
        raise DTypeError(f"{op} needs a floating-point input, got {x._dtype.name}; cast first, e.g. "
                         "x.astype(tp.float64).")
    return x


def float_matrices(x: Any, op: str, *, square: bool = False) -> Tensor:
    """`x` as a Tensor of floating (..., M, N) matrices, square ones if `square`."""
    t = floating(asarray(x), op)
    if t._dtype not in LAPACK_DTYPES:
        names = " or ".join(d.name for d in LAPACK_DTYPES)
        raise DTypeError(f"{op} computes in {names} (LAPACK's precisions), got {t._dtype.name}; cast "
                         "first, e.g. x.astype(tp.float32).")
    if square:
        square_shape(t.shape, op)
    else:
        matrix_shape(t.shape, op)
    return t


def conj_transpose(x: Tensor) -> Tensor:
    """The conjugate transpose of each matrix of x (the transpose of a real one)."""
    return matrix_transpose(conj(x) if x._dtype.is_complex else x)


def cholesky(x: Any, /, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of each symmetric (Hermitian) positive-definite matrix, from its lower
    triangle: lower-triangular L with x = L L^H, or U = L^H with x = U^H U if `upper`."""
    upper = valid.flag(upper, "cholesky", "upper")
    low = _CHOLESKY.unary(float_matrices(x, "cholesky", square=True))
    return conj_transpose(low) if upper else low


def eigh(x: Any, /) -> EighResult:
    """Eigenvalues (real, ascending) and eigenvectors (orthonormal columns) of each symmetric
    (Hermitian) matrix, from its lower triangle; each eigenvector's sign (phase) is the library's."""
    w, v = _EIGH((float_matrices(x, "eigh", square=True),))
    return EighResult(w, v)


def eigvalsh(x: Any, /) -> Tensor:
    """Eigenvalues (real, ascending) of each symmetric (Hermitian) matrix, from its lower triangle."""
    return _EIGVALSH.unary(float_matrices(x, "eigvalsh", square=True))


def eig(x: Any, /) -> EigResult:
    """Eigenvalues and eigenvectors (columns of unit norm: x @ v = v * w) of each square matrix,
    complex (complex64 for float32 x), in LAPACK's order; each eigenvector's phase is LAPACK's.
    For a symmetric (Hermitian) matrix prefer eigh. NaN for a matrix holding NaN or inf."""
    w, v = _EIG((float_matrices(x, "eig", square=True),))
    return EigResult(w, v)


def eigvals(x: Any, /) -> Tensor:
    """Eigenvalues (complex, LAPACK's order) of each square matrix: eig without the vectors."""
    return _EIGVALS.unary(float_matrices(x, "eigvals", square=True))


def inv(x: Any, /) -> Tensor:
    """The inverse of each square matrix (NaN for a singular one)."""
    return _INV.unary(float_matrices(x, "inv", square=True))


def qr(x: Any, /, *, mode: str = "reduced") -> QRResult:
    """x = Q R: Q with orthonormal columns ((..., M, K) for mode 'reduced', (..., M, M) for
    'complete'; K = min(M, N)) and upper-triangular R."""
    if not isinstance(mode, str) or mode not in QR_MODES:
        raise ArgumentError(f"qr: mode must be 'reduced' or 'complete', got {valid.shown(mode)}.")
    q, r = _QR[mode]((float_matrices(x, "qr"),))
    return QRResult(q, r)


def svd(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """x = U diag(S) Vh with S real and descending; U (..., M, M) and Vh (..., N, N) if `full_matrices`,
    else (..., M, K) and (..., K, N), K = min(M, N)."""
    full = valid.flag(full_matrices, "svd", "full_matrices")
    u, s, vh = _SVD[full]((float_matrices(x, "svd"),))
    return SVDResult(u, s, vh)


def svdvals(x: Any, /) -> Tensor:
    """The singular values of each matrix, real and descending (shape (..., K), K = min(M, N))."""
    return _SVDVALS.unary(float_matrices(x, "svdvals"))


def solve(x1: Any, x2: Any, /) -> Tensor:
    """X with x1 X = x2 for square x1 (..., M, M); x2 is (..., M, K) (batch axes broadcast) or
    one vector (M,), giving (..., M). NaN where x1 is singular."""
    a, b = convert_pair(x1, x2, "solve")
    float_matrices(a, "solve")
    if b.ndim == 1:
        m = square_shape(a.shape, "solve")
        if b.shape[0] != m:
            raise ShapeError(f"solve: the right-hand side vector of shape {b.shape} does not fit the "
                             f"{m} x {m} matrices of shape {a.shape}: it needs shape ({m},).")
        out = _SOLVE.binary(a, reshape(b, (m, 1)))
        return reshape(out, a.shape[:-1])
    solve_shape(a.shape, b.shape, "solve")
    return _SOLVE.binary(a, b)


def slogdet(x: Any, /) -> SlogdetResult:
    """Sign (complex of modulus 1 for a complex matrix) and natural log of the absolute
    determinant (real) of each square matrix ((0, -inf) for a singular one)."""
    sign, logabsdet = _SLOGDET((float_matrices(x, "slogdet", square=True),))
    return SlogdetResult(sign, logabsdet)


def det(x: Any, /) -> Tensor:
    """The determinant of each square matrix."""
    return _DET.unary(float_matrices(x, "det", square=True))
