"""Decomposition kernels (Cholesky, Eigh, Eigvalsh, Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det) on
each backend:
values against numpy.linalg in float32 and float64 over batched shapes (eigenvectors and
singular vectors up to sign, by what they must satisfy), the lower triangle read, NaN for
matrices that cannot be factored, and the specs' errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import FLOATS, raises_for, run

RNG = np.random.default_rng(7)
SHAPES = [(3, 3), (2, 1, 2, 2), (1, 1)]
RECT = [(4, 3), (2, 2, 3)]


def _tol(dtype):
    return {"rtol": 2e-4, "atol": 2e-4} if dtype is tp.float32 else {"rtol": 1e-10, "atol": 1e-10}


def _general(shape, dtype):
    """Well-conditioned square matrices: random plus a multiple of the identity."""
    return (RNG.standard_normal(shape) + 3 * np.eye(shape[-1])).astype(dtype.numpy)


def _spd(shape, dtype):
    a = RNG.standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype.numpy)


def _close(got, want, dtype):
    np.testing.assert_allclose(got, np.asarray(want, np.float64), **_tol(dtype))


def _outputs(name, inputs, attrs=None):
    out = tp.run_kernel(name, {k: tp.asarray(v) for k, v in inputs.items()}, attrs)
    return [np.asarray(t.numpy()) for t in out]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_square_kernels_match_numpy(shape, dtype):
    spd, a = _spd(shape, dtype), _general(shape, dtype)
    wide = a.astype(np.float64)
    _close(run("Cholesky", {"x": spd}), np.linalg.cholesky(spd.astype(np.float64)), dtype)
    _close(run("Inv", {"x": a}), np.linalg.inv(wide), dtype)
    _close(run("Det", {"x": a}), np.linalg.det(wide), dtype)
    sign, logabsdet = _outputs("Slogdet", {"x": a})
    want_sign, want_log = np.linalg.slogdet(wide)
    _close(sign, want_sign, dtype)
    _close(logabsdet, want_log, dtype)
    b = RNG.standard_normal(shape[:-1] + (2,)).astype(dtype.numpy)
    _close(run("Solve", {"a": a, "b": b}), np.linalg.solve(wide, b.astype(np.float64)), dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_eigh_eigenvalues_match_and_vectors_diagonalize(shape, dtype):
    x = _spd(shape, dtype)
    x_low = np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)
    x_upper_junk = x + np.triu(np.full(shape, 5.0), 1).astype(dtype.numpy)  # never read
    w, v = _outputs("Eigh", {"x": x_upper_junk})
    assert w.dtype == v.dtype == dtype.numpy
    _close(w, np.linalg.eigvalsh(x_low.astype(np.float64)), dtype)
    _close(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(shape[-1]), shape), dtype)
    _close(x_low @ v, v * w[..., None, :], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", SHAPES + RECT + [(2, 0, 3)], ids=str)
def test_eigvalsh_and_svdvals_are_numpys_values_alone(shape, dtype):
    """Eigvalsh of the lower triangle (the upper one is junk) and Svdvals against numpy, real
    outputs of the input's precision, and the same values as Eigh's and Svd's."""
    x = RNG.standard_normal(shape).astype(dtype.numpy)
    s = run("Svdvals", {"x": x})
    assert s.dtype == dtype.numpy and s.shape == shape[:-2] + (min(shape[-2:]),)
    _close(s, np.linalg.svd(x.astype(np.float64), compute_uv=False), dtype)
    _close(s, _outputs("Svd", {"x": x}, {"full_matrices": False})[1], dtype)
    if shape[-1] != shape[-2]:
        return
    spd = _spd(shape, dtype)
    junk = spd + np.triu(np.full(shape, 5.0), 1).astype(dtype.numpy)
    w = run("Eigvalsh", {"x": junk})
    assert w.dtype == dtype.numpy and w.shape == shape[:-1]
    _close(w, np.linalg.eigvalsh(spd.astype(np.float64)), dtype)
    _close(w, _outputs("Eigh", {"x": junk})[0], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", RECT + [(2, 3, 3)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_matches_numpy(shape, dtype, mode):
    x = RNG.standard_normal(shape).astype(dtype.numpy)
    q, r = _outputs("Qr", {"x": x}, {"mode": mode})
    want_q, want_r = np.linalg.qr(x.astype(np.float64), mode=mode)
    assert q.shape == want_q.shape and r.shape == want_r.shape
    _close(q @ r, x, dtype)
    _close(np.abs(r), np.abs(want_r), dtype)  # R up to the signs of its rows (LAPACK's on both)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", RECT + [(2, 3, 3)], ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs_with_numpys_singular_values(shape, dtype, full):
    x = RNG.standard_normal(shape).astype(dtype.numpy)
    u, s, vh = _outputs("Svd", {"x": x}, {"full_matrices": full})
    want_u, want_s, want_vh = np.linalg.svd(x.astype(np.float64), full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (want_u.shape, want_s.shape, want_vh.shape)
    _close(s, want_s, dtype)
    k = s.shape[-1]
    _close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x, dtype)
    eye = np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2)
    _close(np.swapaxes(u, -1, -2) @ u, eye, dtype)


def test_cholesky_reads_the_lower_triangle_only():
    x = _spd((3, 3), tp.float64)
    junk = x + np.triu(np.full((3, 3), 7.0), 1)
    np.testing.assert_allclose(run("Cholesky", {"x": junk}), np.linalg.cholesky(x), rtol=1e-12)


def test_solve_broadcasts_batch_axes():
    a = _general((2, 1, 3, 3), tp.float64)
    b = RNG.standard_normal((4, 3, 2))
    np.testing.assert_allclose(run("Solve", {"a": a, "b": b}), np.linalg.solve(a, b), rtol=1e-10)


def test_matrices_that_cannot_be_factored_give_nan_for_themselves_only():
    good = _general((3, 3), tp.float64)
    singular = np.ones((3, 3))
    stack = np.stack([good, singular])
    inv = run("Inv", {"x": stack})
    np.testing.assert_allclose(inv[0], np.linalg.inv(good), rtol=1e-10)
    assert np.isnan(inv[1]).all()
    x = run("Solve", {"a": stack, "b": np.ones((3, 1))})
    assert np.isnan(x[1]).all() and np.isfinite(x[0]).all()
    chol = run("Cholesky", {"x": np.stack([_spd((3, 3), tp.float64), -np.eye(3)])})
    assert np.isfinite(chol[0]).all() and np.isnan(chol[1]).all()
    sign, logabsdet = _outputs("Slogdet", {"x": stack})
    assert sign[1] == 0 and logabsdet[1] == -np.inf
    assert run("Det", {"x": stack})[1] == 0


@pytest.mark.parametrize(("name", "shape", "fragments"), [
    ("Cholesky", (2, 3), ("square", "(2, 3)")), ("Inv", (3,), ("at least 2 dimensions",)),
    ("Eigh", (2, 4, 3), ("square",)), ("Det", (4,), ("at least 2 dimensions",)),
    ("Slogdet", (3, 2), ("square",)), ("Qr", (3,), ("at least 2",)), ("Svd", (5,), ("at least 2",)),
    ("Eigvalsh", (3, 2), ("square", "(3, 2)")), ("Svdvals", (5,), ("at least 2",)),
], ids=str)
def test_shape_errors(name, shape, fragments):
    raises_for(name, tp.ShapeError, {"x": np.zeros(shape, np.float32)}, None, *fragments)


def test_solve_shape_and_dtype_errors():
    raises_for("Solve", tp.ShapeError, {"a": np.zeros((3, 3)), "b": np.zeros((2, 1))}, None,
               "(2, 1)", "(..., 3, K)")
    raises_for("Solve", tp.ShapeError, {"a": np.zeros((2, 3, 3)), "b": np.zeros((3, 3, 1))}, None,
               "cannot be broadcast")
    raises_for("Solve", tp.DTypeError, {"a": np.zeros((3, 3)), "b": np.zeros((3, 1), np.float32)}, None,
               "float32", "float64")


@pytest.mark.parametrize("name", ["Cholesky", "Eigh", "Eigvalsh", "Inv", "Qr", "Svd", "Svdvals", "Slogdet",
                                  "Det"])
def test_integer_inputs_are_refused(name):
    raises_for(name, tp.DTypeError, {"x": np.zeros((2, 2), np.int64)}, None, "int64")


def test_qr_mode_attribute_is_checked():
    with pytest.raises(tp.ShapeError, match="kernel 'Qr': attribute 'mode'='r' is invalid.*'reduced'"):
        tp.run_kernel("Qr", {"x": tp.asarray(np.zeros((2, 2)))}, {"mode": "r"})


@pytest.mark.parametrize("dtype", [tp.complex64, tp.complex128], ids=lambda d: d.name)
def test_complex_kernels_match_numpy_with_real_values_where_the_spec_says(dtype):
    """Complex inputs: Hermitian for Cholesky and Eigh; eigenvalues, singular values and
    logabsdet real (the spec's rule, checked by ``run``), the sign of modulus 1."""
    tol = _tol(tp.float32 if dtype is tp.complex64 else tp.float64)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    hpd = a @ np.conj(np.swapaxes(a, -1, -2)) + 3 * np.eye(3)
    x, h = a.astype(dtype.numpy), hpd.astype(dtype.numpy)
    np.testing.assert_allclose(run("Cholesky", {"x": np.tril(h)}), np.linalg.cholesky(hpd), **tol)
    np.testing.assert_allclose(run("Inv", {"x": x}), np.linalg.inv(a), **tol)
    np.testing.assert_allclose(run("Det", {"x": x}), np.linalg.det(a), **tol)
    np.testing.assert_allclose(run("Solve", {"a": x, "b": x[..., :1]}), np.linalg.solve(a, a[..., :1]), **tol)
    sign, logabsdet = _outputs("Slogdet", {"x": x})
    want_sign, want_log = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign, want_sign, **tol)
    np.testing.assert_allclose(logabsdet, want_log, **tol)
    assert logabsdet.dtype == np.dtype(dtype.numpy).type(0).real.dtype
    w, v = _outputs("Eigh", {"x": np.tril(h)})
    np.testing.assert_allclose(w, np.linalg.eigvalsh(hpd), **tol)
    np.testing.assert_allclose(hpd @ v, v * w[..., None, :], **tol)
    u, s, vh = _outputs("Svd", {"x": x}, {"full_matrices": False})
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), **tol)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, **tol)
    np.testing.assert_allclose(run("Eigvalsh", {"x": np.tril(h)}), np.linalg.eigvalsh(hpd), **tol)
    np.testing.assert_allclose(run("Svdvals", {"x": x[..., :2]}), np.linalg.svd(a[..., :2], compute_uv=False),
                               **tol)
    q, r = _outputs("Qr", {"x": x[0]}, {"mode": "reduced"})
    np.testing.assert_allclose(q @ r, a[0], **tol)
