"""Gradients of the decomposition kernels and of the tp.linalg functions composed over them, on
each backend: finite differences to second order (third for the smooth solvers) on
well-conditioned inputs (symmetric positive definite for cholesky and eigh, distinct eigen-
and singular values), agreement with jax.grad in float64, and the cases that are refused. The
complex eigenvalues of eig and eigvals are checked through their real parts and squared
imaginary parts, eig's eigenvectors through their moduli (which their phases do not move)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")

L = tp.linalg
RNG = np.random.default_rng(11)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


SPD = _spd(3, (2,))
_Q = np.linalg.qr(RNG.standard_normal((2, 3, 3)))[0]
SEPARATED = (_Q * np.array([1.0, 4.0, 9.0])) @ np.swapaxes(_Q, -1, -2)  # eigenvalues 1, 4, 9
SQUARE = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
TALL = RNG.standard_normal((4, 3))
WIDE = RNG.standard_normal((2, 2, 3))
B = RNG.standard_normal((2, 3, 2))


def _parts(z):
    """A real tensor that moves with both parts of the complex `z`."""
    return tp.real(z) + tp.imag(z) ** 2

#: (id, function of the differentiated input, input, highest order checked)
CASES = [
    ("cholesky", L.cholesky, SPD, 2),
    ("cholesky-upper", lambda x: L.cholesky(x, upper=True), SPD[0], 2),
    ("eigh-eigenvalues", lambda x: L.eigh(x).eigenvalues, SPD, 2),
    ("eigh-eigenvectors", lambda x: L.eigh(x).eigenvectors, SPD[0], 2),
    ("eigh-both", lambda x: L.eigh(x).eigenvectors * L.eigh(x).eigenvalues[..., None, :], SPD[1], 1),
    ("eigvalsh", L.eigvalsh, SPD[0], 2),
    ("eigvalsh-separated", L.eigvalsh, SEPARATED, 3),
    ("eig-eigenvalues", lambda x: _parts(L.eig(x).eigenvalues), SQUARE, 2),
    ("eig-eigenvectors", lambda x: tp.abs(L.eig(x).eigenvectors) ** 2, SQUARE[0], 2),
    ("eigvals", lambda x: _parts(L.eigvals(x)), SQUARE, 2),
    ("inv", L.inv, SQUARE, 3),
    ("det", L.det, SQUARE, 3),
    ("slogdet", lambda x: L.slogdet(x).logabsdet, SQUARE, 3),
    ("solve-a", lambda a: L.solve(a, B), SQUARE, 2),
    ("solve-b", lambda b: L.solve(SQUARE, b), B, 2),
    ("solve-broadcast-a", lambda a: L.solve(a, B), SQUARE[0], 2),
    ("solve-vector", lambda b: L.solve(SQUARE, b), B[0, :, 0], 2),
    ("qr-q", lambda x: L.qr(x).Q, TALL, 2),
    ("qr-r", lambda x: L.qr(x).R, TALL, 2),
    ("qr-square-complete", lambda x: L.qr(x, mode="complete").Q, SQUARE[0], 2),
    ("svd-u", lambda x: L.svd(x, full_matrices=False).U, TALL, 2),
    ("svd-s", lambda x: L.svd(x, full_matrices=False).S, TALL, 2),
    ("svd-vh", lambda x: L.svd(x, full_matrices=False).Vh, TALL, 2),
    ("svd-wide-u", lambda x: L.svd(x, full_matrices=False).U, WIDE, 2),
    ("svd-wide-vh", lambda x: L.svd(x, full_matrices=False).Vh, WIDE, 2),
    ("svd-square-full", lambda x: L.svd(x).Vh, SQUARE[0], 1),
    ("svdvals", L.svdvals, WIDE, 2),
    ("svdvals-tall", L.svdvals, TALL, 3),
    ("pinv", L.pinv, TALL, 2),
    ("matrix_power-negative", lambda x: L.matrix_power(x, -2), SQUARE[0], 2),
    ("matrix_norm-nuc", lambda x: L.matrix_norm(x, ord="nuc"), TALL, 2),
    ("matrix_norm-2", lambda x: L.matrix_norm(x, ord=2), WIDE, 2),
    ("matrix_norm-fro", L.matrix_norm, WIDE, 2),
    ("vector_norm-3", lambda x: L.vector_norm(x, ord=3, axis=-1), TALL + 5, 2),
    ("trace-diagonal", lambda x: L.trace(x, offset=1) + L.diagonal(x, offset=-1)[..., 0], WIDE, 2),
    ("cross", lambda x: L.cross(x, TALL[:2]), TALL[1:3], 2),
]


@pytest.mark.parametrize(("f", "x", "order"), [pytest.param(f, x, o, id=i) for i, f, x, o in CASES])
def test_gradients_match_finite_differences(f, x, order):
    check_gradients(f, x, order=order)


def _jax_cases():
    import jax.numpy as jnp
    from jax import lax

    def lower(x):  # what the kernels read of x: its lower triangle, mirrored
        return jnp.tril(x) + jnp.swapaxes(jnp.tril(x, -1), -1, -2)

    w3, w4 = RNG.standard_normal((2, 3, 3)), RNG.standard_normal((4, 3))
    return [  # (id, tensorplug loss, jax loss, input): losses the sign choices of vectors do not move
        ("cholesky", lambda x: tp.sum(L.cholesky(x) * w3),
         lambda x: jnp.sum(jnp.linalg.cholesky(lower(x)) * w3), SPD),
        ("eigh", lambda x: tp.sum(L.eigh(x).eigenvectors ** 2 * w3) + tp.sum(L.eigvalsh(x) * w3[0, 0]),
         lambda x: jnp.sum(jnp.linalg.eigh(lower(x))[1] ** 2 * w3)
         + jnp.sum(jnp.linalg.eigh(lower(x))[0] * w3[0, 0]), SPD),
        ("eigvalsh", lambda x: tp.sum(L.eigvalsh(x) * w3[:, 0]),
         lambda x: jnp.sum(jnp.linalg.eigvalsh(lower(x)) * w3[:, 0]), SPD),
        ("svdvals", lambda x: tp.sum(L.svdvals(x) * w3[:, 0, :2]),
         lambda x: jnp.sum(jnp.linalg.svd(x, compute_uv=False) * w3[:, 0, :2]), WIDE),
        ("eigvals", lambda x: tp.sum(_parts(L.eigvals(x)) * w3[:, 0]),
         lambda x: jnp.sum((jnp.real(jnp.linalg.eigvals(x)) + jnp.imag(jnp.linalg.eigvals(x)) ** 2)
                           * w3[:, 0]), SQUARE),
        ("eig", lambda x: tp.sum(tp.abs(L.eig(x).eigenvectors) ** 2 * w3),
         lambda x: jnp.sum(jnp.abs(lax.linalg.eig(x, compute_left_eigenvectors=False,
                                                  enable_eigvec_derivs=True)[1]) ** 2 * w3), SQUARE),
        ("inv", lambda x: tp.sum(L.inv(x) * w3), lambda x: jnp.sum(jnp.linalg.inv(x) * w3), SQUARE),
        ("det", lambda x: tp.sum(L.det(x)), lambda x: jnp.sum(jnp.linalg.det(x)), SQUARE),
        ("slogdet", lambda x: tp.sum(L.slogdet(x).logabsdet), lambda x: jnp.sum(jnp.linalg.slogdet(x)[1]),
         SQUARE),
        ("solve", lambda x: tp.sum(L.solve(x, B) * B), lambda x: jnp.sum(jnp.linalg.solve(x, B) * B), SQUARE),
        ("qr", lambda x: tp.sum(L.qr(x).Q ** 2 * w4) + tp.sum(L.qr(x).R ** 2 * w3[0]),
         lambda x: jnp.sum(jnp.linalg.qr(x)[0] ** 2 * w4) + jnp.sum(jnp.linalg.qr(x)[1] ** 2 * w3[0]), TALL),
        ("svd", lambda x: tp.sum(L.svd(x, full_matrices=False).U ** 2 * w4) + tp.sum(L.svdvals(x) * w4[0]),
         lambda x: jnp.sum(jnp.linalg.svd(x, full_matrices=False)[0] ** 2 * w4)
         + jnp.sum(jnp.linalg.svd(x, compute_uv=False) * w4[0]), TALL),
    ]


def test_gradients_agree_with_jax_grad_in_float64():
    jax = pytest.importorskip("jax")
    failures = []
    for name, ours, theirs, x in _jax_cases():
        got = tp.grad(ours)(tp.asarray(x)).numpy()
        with jax.enable_x64(True):
            want = np.asarray(jax.jit(jax.grad(theirs))(jax.numpy.asarray(x)))
        if not np.allclose(got, want, rtol=1e-8, atol=1e-10):
            failures.append(f"{name}: max difference {np.abs(got - want).max()}")
    assert not failures, failures


@pytest.mark.parametrize("f", [L.cholesky, L.eigvalsh], ids=["cholesky", "eigvalsh"])
def test_gradient_lies_on_the_lower_triangle(f):
    g = tp.grad(lambda x: tp.sum(f(x) * tp.asarray(np.arange(1.0, 4.0))))(tp.asarray(SPD[0])).numpy()
    np.testing.assert_array_equal(np.triu(g, 1), 0)
    assert np.abs(np.tril(g, -1)).max() > 0


@pytest.mark.parametrize(("f", "x", "pattern"), [
    (lambda x: L.qr(x).Q, WIDE[0], "Qr is defined for M >= N"),
    (lambda x: L.qr(x, mode="complete").Q, TALL, "Qr is defined for M >= N"),
    (lambda x: L.svd(x).U, TALL, "Svd with full_matrices=True is defined for square"),
], ids=["qr-wide", "qr-complete-tall", "svd-full-tall"])
def test_unsupported_gradients_raise_autodiff_error(f, x, pattern):
    with pytest.raises(tp.AutodiffError, match=pattern):
        tp.grad(lambda t: tp.sum(f(t)))(tp.asarray(x))
