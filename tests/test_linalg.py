"""``tp.linalg``: the Array API linalg extension's functions against numpy.linalg on both
backends (float32 and float64, complex64 and complex128, batched), their signatures against
array_api_strict's, the named-tuple results, every ord of the norms, and bad input refused at
the op boundary."""

from __future__ import annotations

import inspect
import math

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp

L = tp.linalg
RNG = np.random.default_rng(3)
BACKENDS = ("numpy", "jax")
FLOATS = (np.float32, np.float64)


def _tol(dtype):
    return {"rtol": 3e-4, "atol": 3e-4} if dtype == np.float32 else {"rtol": 1e-9, "atol": 1e-9}


def _general(*shape):
    return RNG.standard_normal(shape) + 3 * np.eye(shape[-1])


def _spd(*shape):
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _c(a, like):
    """Constant `a` in the dtype of `like` (a Tensor or a numpy array): no promotion."""
    return np.asarray(a, like.dtype.numpy if isinstance(like, tp.Tensor) else like.dtype)


def matrix_function_rows(square, rect):
    """Table rows of pinv, matrix_rank, matrix_power and trace on `square` and `rect` matrices."""
    return [
        ("pinv", L.pinv, np.linalg.pinv, rect),
        ("pinv-rtol", lambda x: L.pinv(x, rtol=0.5), lambda x: np.linalg.pinv(x, rtol=0.5), rect),
        ("matrix_rank", L.matrix_rank, np.linalg.matrix_rank, rect),
        ("trace", L.trace, lambda x: np.trace(x, axis1=-2, axis2=-1), rect),
    ] + [(f"matrix_power-{n}", lambda x, n=n: L.matrix_power(x, n),
          lambda x, n=n: np.linalg.matrix_power(x, n), square) for n in (3, 0, -2)]


def norm_rows(x):
    """Table rows of every ord of matrix_norm and vector_norm on `x`."""
    return [(f"matrix_norm-{o}", lambda x, o=o: L.matrix_norm(x, ord=o),
             lambda x, o=o: np.linalg.norm(x, ord=o, axis=(-2, -1)), x)
            for o in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)] + [
            (f"vector_norm-{o}", lambda x, o=o: L.vector_norm(x, axis=-1, ord=o),
             lambda x, o=o: np.linalg.norm(x, ord=o, axis=-1), x)
            for o in (2, 1, 0, 3, 0.5, -1, math.inf, -math.inf)]


RECT = RNG.standard_normal((2, 4, 3))
SQUARE = _general(2, 3, 3)
SPD = _spd(2, 3, 3)

#: (name, tensorplug call, numpy reference, input): values compared on both backends
VALUES = [
    ("cholesky", L.cholesky, np.linalg.cholesky, SPD),
    ("cholesky-upper", lambda x: L.cholesky(x, upper=True),
     lambda x: np.swapaxes(np.linalg.cholesky(x), -1, -2), SPD),
    ("det", L.det, np.linalg.det, SQUARE),
    ("eigvalsh", L.eigvalsh, np.linalg.eigvalsh, SPD),
    ("inv", L.inv, np.linalg.inv, SQUARE),
    ("svdvals", L.svdvals, lambda x: np.linalg.svd(x, compute_uv=False), RECT),
    ("slogdet-logabsdet", lambda x: L.slogdet(x).logabsdet, lambda x: np.linalg.slogdet(x)[1], SQUARE),
    ("solve", lambda x: L.solve(x, _c(SQUARE[0, :, :2], x)),
     lambda x: np.linalg.solve(x, SQUARE[0, :, :2]), SQUARE),
    ("solve-vector", lambda x: L.solve(x, _c(np.ones(3), x)),
     lambda x: np.linalg.solve(x, np.ones(3)), SQUARE),
    *matrix_function_rows(SQUARE, RECT),
    ("trace-offset", lambda x: L.trace(x, offset=-1), lambda x: np.trace(x, -1, axis1=-2, axis2=-1), RECT),
    ("cross", lambda x: L.cross(x, _c(RECT[0], x)), lambda x: np.cross(x, RECT[0]), RECT),
    ("cross-axis", lambda x: L.cross(x, _c(RECT[1, :3], x), axis=-2),
     lambda x: np.cross(x, RECT[1, :3], axis=-2), RECT[:, :3]),
    ("matmul", lambda x: L.matmul(x, _c(RECT[0].T, x)), lambda x: x @ RECT[0].T, RECT),
    ("outer", lambda x: L.outer(x, x[:2]), lambda x: np.outer(x, x[:2]), RECT[0, 0]),
    ("tensordot", lambda x: L.tensordot(x, _c(RECT[0], x), axes=2), lambda x: np.tensordot(x, RECT[0]), RECT),
    ("vecdot", lambda x: L.vecdot(x, _c(RECT, x)), lambda x: np.sum(x * RECT, axis=-1), RECT),
    ("matrix_transpose", L.matrix_transpose, lambda x: np.swapaxes(x, -1, -2), RECT),
] + [
    (f"diagonal-{k}", lambda x, k=k: L.diagonal(x, offset=k),
     lambda x, k=k: np.diagonal(x, k, axis1=-2, axis2=-1), RECT) for k in (0, 1, -2, 3, -4, 5)
] + norm_rows(RECT)


def _table_failures(backend, table, dtype):
    """One pass over `table` in `dtype` (a table, not a test per row: jax compiles each kernel
    once per shape and dtype, and the rows share them); a real reference value means a real
    output of the input's precision."""
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    failures = []
    with tp.backend_scope(backend):
        for name, ours, numpys, x in table:
            x = np.asarray(x, dtype)
            got = ours(tp.asarray(x))
            want = numpys(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
            try:
                assert got.shape == np.shape(want), (got.shape, np.shape(want))
                if name != "matrix_rank":
                    assert got.dtype.numpy == (dtype if np.iscomplexobj(want) else real), got.dtype
                np.testing.assert_allclose(got.numpy(), want, **_tol(real))
            except AssertionError as exc:
                failures.append(f"{name}: {exc}")
    return failures


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_values_match_numpy(backend, dtype):
    failures = _table_failures(backend, VALUES, dtype)
    assert not failures, "\n".join(failures)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


C_RECT = _complex(2, 4, 3)
C_SQUARE = _complex(2, 3, 3) + 3 * np.eye(3)
C_HPD = C_SQUARE @ _h(C_SQUARE) + 3 * np.eye(3)  # Hermitian positive definite

#: (name, tensorplug call, numpy reference, input): complex inputs; a real reference value means
#: a real output (of the input's precision)
COMPLEX_VALUES = [
    ("cholesky", L.cholesky, np.linalg.cholesky, C_HPD),
    ("cholesky-upper", lambda x: L.cholesky(x, upper=True), lambda x: _h(np.linalg.cholesky(x)), C_HPD),
    ("det", L.det, np.linalg.det, C_SQUARE),
    ("eigvalsh", L.eigvalsh, np.linalg.eigvalsh, C_HPD),
    ("inv", L.inv, np.linalg.inv, C_SQUARE),
    ("svdvals", L.svdvals, lambda x: np.linalg.svd(x, compute_uv=False), C_RECT),
    ("slogdet-sign", lambda x: L.slogdet(x).sign, lambda x: np.linalg.slogdet(x)[0], C_SQUARE),
    ("slogdet-logabsdet", lambda x: L.slogdet(x).logabsdet, lambda x: np.linalg.slogdet(x)[1], C_SQUARE),
    ("solve", lambda x: L.solve(x, _c(C_SQUARE[0, :, :2], x)),
     lambda x: np.linalg.solve(x, C_SQUARE[0, :, :2]), C_SQUARE),
    ("solve-vector", lambda x: L.solve(x, _c(C_SQUARE[0, 0], x)),
     lambda x: np.linalg.solve(x, C_SQUARE[0, 0]), C_SQUARE),
    *matrix_function_rows(C_SQUARE, C_RECT),
    ("diagonal", lambda x: L.diagonal(x, offset=1), lambda x: np.diagonal(x, 1, axis1=-2, axis2=-1), C_RECT),
    ("cross", lambda x: L.cross(x, _c(C_RECT[0], x)), lambda x: np.cross(x, C_RECT[0]), C_RECT),
    ("matmul", lambda x: L.matmul(x, _c(C_RECT[0].T, x)), lambda x: x @ C_RECT[0].T, C_RECT),
    ("outer", lambda x: L.outer(x, x[:2]), lambda x: np.outer(x, x[:2]), C_RECT[0, 0]),
    ("tensordot", lambda x: L.tensordot(x, _c(C_RECT[0], x), axes=2), lambda x: np.tensordot(x, C_RECT[0]),
     C_RECT),
    ("vecdot", lambda x: L.vecdot(x, _c(C_RECT, x)), lambda x: np.sum(np.conj(x) * C_RECT, axis=-1), C_RECT),
] + norm_rows(C_RECT)


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_values_match_numpy(backend, dtype):
    """The standard's floating-point inputs include complex ones; eigenvalues, singular values,
    logabsdet and the norms are real (of the input's precision), the rest complex."""
    failures = _table_failures(backend, COMPLEX_VALUES, dtype)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_decompositions_reconstruct(backend):
    with tp.backend_scope(backend):
        w, v = L.eigh(C_HPD)
        assert w.dtype is tp.float64 and v.dtype is tp.complex128
        np.testing.assert_allclose(C_HPD @ v.numpy(), v.numpy() * w.numpy()[..., None, :], atol=1e-10)
        eye = np.broadcast_to(np.eye(3), (2, 3, 3))
        np.testing.assert_allclose(_h(v.numpy()) @ v.numpy(), eye, atol=1e-10)
        q, r = L.qr(C_RECT)
        np.testing.assert_allclose((q @ r).numpy(), C_RECT, atol=1e-10)
        np.testing.assert_allclose(_h(q.numpy()) @ q.numpy(), eye, atol=1e-10)
        u, s, vh = L.svd(C_RECT, full_matrices=False)
        assert s.dtype is tp.float64
        np.testing.assert_allclose(((u * s[..., None, :]) @ vh).numpy(), C_RECT, atol=1e-10)
        sign, logabsdet = L.slogdet(C_SQUARE)
        np.testing.assert_allclose(np.abs(sign.numpy()), 1.0)
        np.testing.assert_allclose((sign * tp.exp(logabsdet)).numpy(), np.linalg.det(C_SQUARE))
        low_only = np.tril(C_HPD) + 1j * np.eye(3)  # the upper triangle and the diagonal's imaginary parts
        np.testing.assert_allclose(L.cholesky(low_only).numpy(), np.linalg.cholesky(C_HPD), atol=1e-10)
        np.testing.assert_allclose(L.eigvalsh(low_only).numpy(), np.linalg.eigvalsh(C_HPD), atol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_decompositions_are_named_tuples_that_reconstruct(backend):
    with tp.backend_scope(backend):
        w, v = eig = L.eigh(SPD)
        assert isinstance(eig, L.EighResult) and eig.eigenvalues is w and eig.eigenvectors is v
        np.testing.assert_allclose(SPD @ v.numpy(), v.numpy() * w.numpy()[..., None, :], atol=1e-10)
        q, r = result = L.qr(RECT)
        assert isinstance(result, L.QRResult) and result.Q is q and result.R is r
        assert q.shape == (2, 4, 3) and L.qr(RECT, mode="complete").Q.shape == (2, 4, 4)
        np.testing.assert_allclose((q @ r).numpy(), RECT, atol=1e-10)
        u, s, vh = svd = L.svd(RECT)
        assert isinstance(svd, L.SVDResult) and (svd.U, svd.S, svd.Vh) == (u, s, vh)
        assert (u.shape, s.shape, vh.shape) == ((2, 4, 4), (2, 3), (2, 3, 3))
        assert L.svd(RECT, full_matrices=False).U.shape == (2, 4, 3)
        sign, logabsdet = det = L.slogdet(SQUARE)
        assert isinstance(det, L.SlogdetResult) and det.sign is sign and det.logabsdet is logabsdet
        np.testing.assert_allclose((sign * tp.exp(logabsdet)).numpy(), np.linalg.det(SQUARE))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_and_eigvals_match_numpy_up_to_order_and_phase(backend, dtype):
    x = (_general(2, 4, 4) + (1j * RNG.standard_normal((2, 4, 4)) if np.dtype(dtype).kind == "c" else 0))
    x = x.astype(dtype)
    complex_dtype = np.result_type(dtype, np.complex64)
    tol = {"rtol": 1e-3, "atol": 1e-3} if complex_dtype == np.complex64 else {"rtol": 1e-9, "atol": 1e-9}
    with tp.backend_scope(backend):
        w, v = result = L.eig(x)
        values = L.eigvals(x)
    assert isinstance(result, L.EigResult) and result.eigenvalues is w and result.eigenvectors is v
    assert (w.dtype.numpy, v.dtype.numpy, values.dtype.numpy) == (complex_dtype,) * 3
    assert (w.shape, v.shape, values.shape) == ((2, 4), (2, 4, 4), (2, 4))
    want = np.linalg.eigvals(x.astype(np.complex128))
    for got in (w.numpy(), values.numpy()):  # the same values, in any order: each near its nearest
        apart = np.abs(got[..., :, None] - want[..., None, :])
        assert max(apart.min(axis=-1).max(), apart.min(axis=-2).max()) < 10 * tol["atol"]
    v = v.numpy()
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, **tol)
    np.testing.assert_allclose(x @ v, v * w.numpy()[..., None, :], **tol)


@pytest.mark.parametrize("backend", BACKENDS)
def test_eig_of_a_matrix_holding_nan_is_nan_and_the_others_are_computed(backend):
    x = np.stack([np.diag([1.0, 2.0]), [[np.nan, 0.0], [0.0, 1.0]]])
    with tp.backend_scope(backend):
        w, v = L.eig(x)
        assert np.isnan(w.numpy()[1]).all() and np.isnan(v.numpy()[1]).all()
        np.testing.assert_allclose(np.sort_complex(w.numpy()[0]), [1.0, 2.0])
        np.testing.assert_allclose(L.eigvals(tp.jit(lambda t: t * 2.0)(tp.asarray(x[:1]))).numpy()[0].real,
                                   [2.0, 4.0])
        np.testing.assert_allclose(np.sort(tp.jit(L.eigvals)(tp.asarray(x[:1])).numpy()[0].real), [1.0, 2.0])


def test_matrix_rank_and_trace_dtypes_and_rtol():
    low_rank = np.stack([np.outer([1.0, 2, 3], [1.0, 0, 1]), np.eye(3)])
    rank = L.matrix_rank(low_rank)
    assert rank.dtype is tp.int64 and rank.numpy().tolist() == [1, 3]
    assert L.matrix_rank(low_rank, rtol=np.array([0.1, 2.0])).numpy().tolist() == [1, 0]
    assert L.matrix_rank(np.zeros((2, 0, 3))).numpy().tolist() == [0, 0]
    assert L.trace(tp.asarray(np.arange(9).reshape(3, 3).astype(np.int32))).dtype is tp.int64
    assert L.trace(np.eye(3), dtype=tp.float32).dtype is tp.float32
    assert L.vector_norm(RECT).shape == () and L.vector_norm(RECT, keepdims=True).shape == (1, 1, 1)
    assert L.vector_norm(RECT, axis=(0, 2)).shape == (4,)
    assert L.matrix_norm(RECT, keepdims=True, ord=2).shape == (2, 1, 1)


def test_tp_linalg_reexports_the_main_namespace_functions():
    for name in ("matmul", "matrix_transpose", "outer", "tensordot", "vecdot"):
        assert getattr(L, name) is getattr(tp, name)


EXTENSIONS = {"band_part", "tensor_diag"}  # TF's MatrixBandPart and Diag: not in the standard


STANDARD = sorted(n for n in L.__all__ if not n.endswith("Result") and n not in EXTENSIONS)


@pytest.mark.parametrize("name", STANDARD)
def test_signatures_match_array_api_strict(name):
    """Parameter names, kinds (positional-only, keyword-only) and defaults as the standard's."""
    def shape(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert shape(getattr(L, name)) == shape(getattr(xp.linalg, name))


@pytest.mark.parametrize(("call", "error", "pattern"), [
    (lambda: L.cholesky(np.eye(3, dtype=np.int64)), tp.DTypeError, "cholesky needs a floating-point .*int64"),
    (lambda: L.inv(tp.ones((2, 2), dtype=tp.int32)), tp.DTypeError, "inv needs a floating-point .*int32"),
    (lambda: L.det(np.ones(3)), tp.ShapeError, "det: needs a stack of matrices.*shape \\(3,\\)"),
    (lambda: L.eigh(np.ones((2, 3))), tp.ShapeError, "eigh: needs square matrices.*\\(2, 3\\)"),
    (lambda: L.eig(np.ones((2, 3))), tp.ShapeError, "eig: needs square matrices.*\\(2, 3\\)"),
    (lambda: L.eigvals(np.eye(2, dtype=np.int32)), tp.DTypeError, "eigvals needs a floating-point .*int32"),
    (lambda: L.eigvals(np.eye(2, dtype=np.float16)), tp.DTypeError, "eigvals computes in float32"),
    (lambda: L.solve(np.eye(3), np.ones((2, 1))), tp.ShapeError, "solve: the right-hand side .*\\(2, 1\\)"),
    (lambda: L.solve(np.eye(3), np.ones(2)), tp.ShapeError, "solve: the right-hand side"),
    (lambda: L.solve(np.ones((2, 3)), np.ones(2)), tp.ShapeError, "solve: needs square"),
    (lambda: L.solve(np.eye(2, dtype=np.int32), np.ones(2, np.int32)), tp.DTypeError, "solve needs a float"),
    (lambda: L.qr(np.eye(2), mode="full"), tp.ArgumentError, "qr: mode must be 'reduced' or 'complete'"),
    (lambda: L.svd(np.eye(2), full_matrices=np.ones(2)), tp.ArgumentError, "svd: full_matrices"),
    (lambda: L.matrix_norm(np.eye(2), ord=3), tp.ArgumentError, "matrix_norm: ord must be one of"),
    (lambda: L.matrix_norm(np.ones(2)), tp.ShapeError, "matrix_norm: needs a stack of matrices"),
    (lambda: L.vector_norm(np.ones(2), ord="fro"), tp.ArgumentError, "vector_norm: ord must be a number"),
    (lambda: L.vector_norm(np.ones(2), axis=3), tp.ShapeError, "vector_norm"),
    (lambda: L.vector_norm(np.ones(2, np.int64)), tp.DTypeError, "vector_norm needs a floating"),
    (lambda: L.matrix_power(np.eye(2), 1.5), tp.ArgumentError, "matrix_power: n must be an int"),
    (lambda: L.matrix_power(np.ones((2, 3)), 2), tp.ShapeError, "matrix_power: needs square"),
    (lambda: L.matrix_rank(np.eye(2), rtol=np.array([1, 2])), tp.DTypeError, "matrix_rank: rtol must be"),
    (lambda: L.pinv(np.ones((2, 2, 2)), rtol=np.ones(3)), tp.ShapeError, "pinv"),
    (lambda: L.cross(np.ones(3), np.ones(2)), tp.ShapeError, "cross: .*cannot be broadcast"),
    (lambda: L.cross(np.ones((3, 2)), np.ones((3, 2))), tp.ShapeError, "cross: .* size 3 along axis -1"),
    (lambda: L.cross(np.ones(3, bool), np.ones(3, bool)), tp.DTypeError, "cross does not accept bool"),
    (lambda: L.diagonal(np.ones(3)), tp.ShapeError, "diagonal: needs a stack of matrices"),
    (lambda: L.diagonal(np.eye(2), offset=0.5), tp.ArgumentError, "diagonal: offset must be an int"),
    (lambda: L.trace(np.eye(2, dtype=bool)), tp.DTypeError, "trace needs a numeric input"),
    (lambda: L.matrix_rank(np.eye(2, dtype=complex), rtol=np.array([1j])), tp.DTypeError,
     "matrix_rank: rtol must be a float or a real"),
], ids=lambda v: "" if callable(v) else None)
def test_bad_input_is_a_tensorplug_error_naming_the_op(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
