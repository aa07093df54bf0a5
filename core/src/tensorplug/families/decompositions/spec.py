"""Kernel specs of the matrix decompositions and solvers (``tp.linalg``): Cholesky, Eigh,
Eigvalsh, Eig, Eigvals, Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det. Each works on the last two axes of
floating inputs, real or complex, batched over the leading ones (Solve broadcasts them). Eigh's
and Eigvalsh's eigenvalues, Svd's and Svdvals' singular values and Slogdet's logabsdet are real
(``real_of`` the input's dtype); Slogdet's sign of a complex matrix is complex with modulus 1;
Eig's and Eigvals' eigenvalues and eigenvectors are complex (``complex_of`` the input's dtype),
in LAPACK's order, the eigenvectors of unit norm (a matrix holding NaN or inf gives NaN).
Eigvalsh and Svdvals are Eigh's and Svd's values alone: LAPACK skips the vectors (their
gradients compute them in the backward pass).

Cholesky, Eigh and Eigvalsh read the lower triangle only (LAPACK's convention, numpy's UPLO='L'): the
upper one is never looked at, and a complex matrix is taken as Hermitian (the imaginary parts
of its diagonal are ignored, as LAPACK does). A matrix a kernel cannot factor (a singular one for Inv and
Solve, one that is not positive definite for Cholesky) gives a NaN-filled result for that
matrix on every backend, as JAX does, never an exception: a kernel cannot raise on values
under tp.jit, so eager calls answer the same way. Slogdet of a singular matrix is
(0, -inf) and Det 0, as the standard says. Det is a kernel of its own rather than
sign * exp(logabsdet), which would round twice (and lose integer determinants' exactness).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import INEXACT_DTYPES, complex_of, real_of
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, broadcast_shapes, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["square_shape", "matrix_shape", "solve_shape", "as_qr_mode", "QR_MODES", "LAPACK_DTYPES"]

QR_MODES = ("reduced", "complete")


def matrix_shape(shape: Sequence[int], op: str | None = None) -> tuple[int, int]:
    """The last two sizes (M, N) of `shape`; ShapeError naming `op` for fewer than 2 axes."""
    if len(shape) < 2:
        raise ShapeError(f"{op_prefix(op)}needs a stack of matrices (at least 2 dimensions), got shape "
                         f"{tuple(shape)}; reshape a vector to (n, 1) or (1, n) first.")
    return shape[-2], shape[-1]


def square_shape(shape: Sequence[int], op: str | None = None) -> int:
    """M of a stack of square (..., M, M) matrices; ShapeError naming `op` otherwise."""
    m, n = matrix_shape(shape, op)
    if m != n:
        raise ShapeError(f"{op_prefix(op)}needs square matrices in the last two axes, got shape "
                         f"{tuple(shape)} ({m} x {n}).")
    return m


def solve_shape(a: Sequence[int], b: Sequence[int], op: str | None = None) -> tuple[int, ...]:
    """The shape of the solution X of A X = B for A of shape (..., M, M) and B of shape
    (..., M, K); batch axes broadcast."""
    m = square_shape(a, op)
    if len(b) < 2 or b[-2] != m:
        raise ShapeError(f"{op_prefix(op)}the right-hand side of shape {tuple(b)} does not fit the "
                         f"{m} x {m} matrices of shape {tuple(a)}: it needs shape (..., {m}, K) "
                         f"(or ({m},) for one vector).")
    return broadcast_shapes(a[:-2], b[:-2], op=op) + (m, b[-1])


def as_qr_mode(value: Any) -> str:
    if value not in QR_MODES:
        raise ValueError(f"mode must be one of {list(QR_MODES)}, got {value!r}")
    return str(value)


#: LAPACK computes in single and double precision, real and complex: half-precision floats are
#: refused (cast them to float32 first)
LAPACK_DTYPES = tuple(d for d in INEXACT_DTYPES if d.itemsize >= 4)


def _same(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    square_shape(infos[0].shape)
    return [infos[0]]


def _eigh_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    square_shape(x.shape)
    return [TensorInfo(x.shape[:-1], real_of(x.dtype)), x]


def _eigvalsh_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    square_shape(x.shape)
    return [TensorInfo(x.shape[:-1], real_of(x.dtype))]


def _eig_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    square_shape(x.shape)
    return [TensorInfo(x.shape[:-1], complex_of(x.dtype)), TensorInfo(x.shape, complex_of(x.dtype))]


def _eigvals_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    square_shape(x.shape)
    return [TensorInfo(x.shape[:-1], complex_of(x.dtype))]


def _qr_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    m, n = matrix_shape(x.shape)
    k = m if attrs["mode"] == "complete" else min(m, n)
    batch = x.shape[:-2]
    return [TensorInfo(batch + (m, k), x.dtype), TensorInfo(batch + (k, n), x.dtype)]


def _svd_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    m, n = matrix_shape(x.shape)
    k = min(m, n)
    full = attrs["full_matrices"]
    batch = x.shape[:-2]
    return [TensorInfo(batch + (m, m if full else k), x.dtype), TensorInfo(batch + (k,), real_of(x.dtype)),
            TensorInfo(batch + (n if full else k, n), x.dtype)]


def _svdvals_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    m, n = matrix_shape(x.shape)
    return [TensorInfo(x.shape[:-2] + (min(m, n),), real_of(x.dtype))]


def _solve_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    a, b = infos
    return [TensorInfo(solve_shape(a.shape, b.shape), a.dtype)]


def _det_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    square_shape(x.shape)
    return [TensorInfo(x.shape[:-2], x.dtype)]


def _slogdet_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    square_shape(x.shape)
    return [TensorInfo(x.shape[:-2], x.dtype), TensorInfo(x.shape[:-2], real_of(x.dtype))]


_FLOAT = {"x": LAPACK_DTYPES}

CHOLESKY = declare_spec(KernelSpec(
    name="Cholesky", inputs=("x",), infer=_same, input_dtypes=_FLOAT,
    doc="lower-triangular L with x = L L^H, from the lower triangle of each symmetric (Hermitian) "
        "positive-definite matrix (NaN-filled where the matrix is not positive definite)",
))
EIGH = declare_spec(KernelSpec(
    name="Eigh", inputs=("x",), outputs=("eigenvalues", "eigenvectors"), infer=_eigh_rule,
    input_dtypes=_FLOAT,
    doc="eigenvalues (ascending, real) and orthonormal eigenvectors (columns) of each symmetric "
        "(Hermitian) matrix, from its lower triangle",
))
EIGVALSH = declare_spec(KernelSpec(
    name="Eigvalsh", inputs=("x",), infer=_eigvalsh_rule, input_dtypes=_FLOAT,
    doc="eigenvalues (ascending, real) of each symmetric (Hermitian) matrix, from its lower "
        "triangle (Eigh without the eigenvectors)",
))
EIG = declare_spec(KernelSpec(
    name="Eig", inputs=("x",), outputs=("eigenvalues", "eigenvectors"), infer=_eig_rule,
    input_dtypes=_FLOAT,
    doc="eigenvalues and eigenvectors (columns of unit norm) of each general square matrix, both "
        "complex, in LAPACK's order (x @ v = v * w)",
))
EIGVALS = declare_spec(KernelSpec(
    name="Eigvals", inputs=("x",), infer=_eigvals_rule, input_dtypes=_FLOAT,
    doc="eigenvalues (complex, LAPACK's order) of each general square matrix (Eig without the "
        "eigenvectors)",
))
INV = declare_spec(KernelSpec(
    name="Inv", inputs=("x",), infer=_same, input_dtypes=_FLOAT,
    doc="inverse of each square matrix (NaN-filled where it is singular)",
))
QR = declare_spec(KernelSpec(
    name="Qr", inputs=("x",), outputs=("q", "r"), infer=_qr_rule, input_dtypes=_FLOAT,
    attrs=(AttrSpec("mode", "reduced", as_qr_mode, "'reduced' (Q of shape (M, K)) or 'complete' "
                                                   "(Q of shape (M, M))"),),
    doc="x = Q R with orthonormal columns of Q and upper-triangular R (LAPACK's Householder signs)",
))
SVD = declare_spec(KernelSpec(
    name="Svd", inputs=("x",), outputs=("u", "s", "vh"), infer=_svd_rule, input_dtypes=_FLOAT,
    attrs=(AttrSpec("full_matrices", True, as_bool, "square U and Vh (else K = min(M, N) columns)"),),
    doc="x = U diag(S) Vh, singular values S real and descending",
))
SVDVALS = declare_spec(KernelSpec(
    name="Svdvals", inputs=("x",), infer=_svdvals_rule, input_dtypes=_FLOAT,
    doc="singular values (real, descending; K = min(M, N) of them) of each matrix (Svd without "
        "U and Vh)",
))
SOLVE = declare_spec(KernelSpec(
    name="Solve", inputs=("a", "b"), infer=_solve_rule, same_dtype=("a", "b"),
    input_dtypes={"a": LAPACK_DTYPES, "b": LAPACK_DTYPES},
    doc="X with A X = B for square A (..., M, M) and B (..., M, K); batch axes broadcast (NaN-filled "
        "where A is singular)",
))
SLOGDET = declare_spec(KernelSpec(
    name="Slogdet", inputs=("x",), outputs=("sign", "logabsdet"), infer=_slogdet_rule,
    input_dtypes=_FLOAT,
    doc="sign (modulus 1 if complex) and natural log of the absolute value (real) of the determinant "
        "((0, -inf) where singular)",
))
DET = declare_spec(KernelSpec(
    name="Det", inputs=("x",), infer=_det_rule, input_dtypes=_FLOAT,
    doc="determinant of each square matrix (LU-based, as LAPACK computes it)",
))
