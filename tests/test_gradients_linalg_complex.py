"""Gradients of tp.linalg for complex128 inputs, on each backend, against jax.grad (JAX's
convention for complex numbers, as the elementwise gradients): one table over the kernels and
the functions composed of them, each loss real-valued (real parts and squared imaginary parts,
weighted), and the eigen- and singular vectors through their moduli, which their phases do not
move (JAX's own tests do the same). Cholesky and Eigh read the lower triangle as a Hermitian
matrix, so jax's side builds that matrix from it. Second derivatives: the gradient's weighted
real part differentiated again, against jax."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.usefixtures("core_gradients")

L = tp.linalg
RNG = np.random.default_rng(23)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


SQUARE = _complex(2, 3, 3) + 3 * np.eye(3)
HPD = SQUARE @ np.conj(np.swapaxes(SQUARE, -1, -2)) + 3 * np.eye(3)  # Hermitian positive definite
TALL = _complex(4, 3)
WIDE = _complex(2, 2, 3)
B = _complex(2, 3, 2)
W3, W4, W23 = RNG.standard_normal((2, 3, 3)), RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3))


def _hermitian(x):
    """What Cholesky and Eigh read of x: its strict lower triangle, mirrored and conjugated,
    and the real parts of its diagonal."""
    low = jnp.tril(x, -1)
    diag = jnp.real(jnp.diagonal(x, axis1=-2, axis2=-1))
    return low + jnp.conj(jnp.swapaxes(low, -1, -2)) + diag[..., None, :] * jnp.eye(x.shape[-1])


def _ours(y, w):
    return tp.sum(tp.real(y) * w) + tp.sum(tp.imag(y) ** 2 * w)


def _theirs(y, w):
    return jnp.sum(jnp.real(y) * w) + jnp.sum(jnp.imag(y) ** 2 * w)


def _moduli(y, w, lib):
    return lib.sum(lib.abs(y) ** 2 * w)


def _svd_loss(lib, svd, svdvals, u_w, vh_w, s_w):
    return lambda x: (_moduli(svd(x).U if lib is tp else svd(x)[0], u_w, lib)
                      + _moduli(svd(x).Vh if lib is tp else svd(x)[2], vh_w, lib) + lib.sum(svdvals(x) * s_w))


def _jsvd(x):
    return jnp.linalg.svd(x, full_matrices=False)


def _tsvd(x):
    return L.svd(x, full_matrices=False)


def _jsvdvals(x):
    return jnp.linalg.svd(x, compute_uv=False)


def _jeig(x):
    return jax.lax.linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)


JL = jnp.linalg
#: (id, tensorplug loss, jax loss, input)
CASES = [
    ("cholesky", lambda x: _ours(L.cholesky(x), W3), lambda x: _theirs(JL.cholesky(_hermitian(x)), W3), HPD),
    ("cholesky-upper", lambda x: _ours(L.cholesky(x, upper=True), W3),
     lambda x: _theirs(jnp.conj(jnp.swapaxes(JL.cholesky(_hermitian(x)), -1, -2)), W3), HPD),
    ("eigh", lambda x: _moduli(L.eigh(x).eigenvectors, W3, tp) + tp.sum(L.eigvalsh(x) * W23),
     lambda x: _moduli(JL.eigh(_hermitian(x))[1], W3, jnp) + jnp.sum(JL.eigvalsh(_hermitian(x)) * W23), HPD),
    ("eigvalsh", lambda x: tp.sum(L.eigvalsh(x) * W23),
     lambda x: jnp.sum(JL.eigvalsh(_hermitian(x)) * W23), HPD),
    ("eig", lambda x: _moduli(L.eig(x).eigenvectors, W3, tp) + _ours(L.eig(x).eigenvalues, W23),
     lambda x: _moduli(_jeig(x)[1], W3, jnp) + _theirs(_jeig(x)[0], W23), SQUARE),
    ("eigvals", lambda x: _ours(L.eigvals(x), W23), lambda x: _theirs(_jeig(x)[0], W23), SQUARE),
    ("inv", lambda x: _ours(L.inv(x), W3), lambda x: _theirs(JL.inv(x), W3), SQUARE),
    ("det", lambda x: _ours(L.det(x), W23[0, :2]), lambda x: _theirs(JL.det(x), W23[0, :2]), SQUARE),
    ("slogdet", lambda x: _ours(L.slogdet(x).sign, W23[0, :2]) + tp.sum(L.slogdet(x).logabsdet * W23[1, :2]),
     lambda x: _theirs(JL.slogdet(x)[0], W23[0, :2]) + jnp.sum(JL.slogdet(x)[1] * W23[1, :2]), SQUARE),
    ("solve-a", lambda a: _ours(L.solve(a, B), W3[..., :2]), lambda a: _theirs(JL.solve(a, B), W3[..., :2]),
     SQUARE),
    ("solve-b", lambda b: _ours(L.solve(SQUARE, b), W3[..., :2]),
     lambda b: _theirs(JL.solve(SQUARE, b), W3[..., :2]), B),
    ("qr-tall", lambda x: _ours(L.qr(x).Q, W4) + _ours(L.qr(x).R, W3[0]),
     lambda x: _theirs(JL.qr(x)[0], W4) + _theirs(JL.qr(x)[1], W3[0]), TALL),
    ("qr-square", lambda x: _ours(L.qr(x).Q, W3) + _ours(L.qr(x).R, W3),
     lambda x: _theirs(JL.qr(x)[0], W3) + _theirs(JL.qr(x)[1], W3), SQUARE),
    ("svd-tall", _svd_loss(tp, _tsvd, L.svdvals, W4, W3[0], W4[0]),
     _svd_loss(jnp, _jsvd, _jsvdvals, W4, W3[0], W4[0]), TALL),
    ("svd-wide", _svd_loss(tp, _tsvd, L.svdvals, W3[:, :2, :2], W3[:, :2], W3[:, 0, :2]),
     _svd_loss(jnp, _jsvd, _jsvdvals, W3[:, :2, :2], W3[:, :2], W3[:, 0, :2]), WIDE),
    ("svdvals-tall", lambda x: tp.sum(L.svdvals(x) * W4[0]),
     lambda x: jnp.sum(_jsvdvals(x) * W4[0]), TALL),
    ("svdvals-wide", lambda x: tp.sum(L.svdvals(x) * W23[:, :2]),
     lambda x: jnp.sum(_jsvdvals(x) * W23[:, :2]), WIDE),
    ("svd-rebuilt", lambda x: _ours((_tsvd(x).U * _tsvd(x).S[..., None, :]) @ _tsvd(x).Vh, W3),
     lambda x: _theirs((_jsvd(x)[0] * _jsvd(x)[1][..., None, :]) @ _jsvd(x)[2], W3), SQUARE),
    ("pinv", lambda x: _ours(L.pinv(x), W4.T), lambda x: _theirs(JL.pinv(x), W4.T), TALL),
    ("matrix_power", lambda x: _ours(L.matrix_power(x, -2), W3),
     lambda x: _theirs(JL.matrix_power(x, -2), W3), SQUARE),
    ("matrix_norm-fro", lambda x: tp.sum(L.matrix_norm(x)), lambda x: jnp.sum(JL.matrix_norm(x)), WIDE),
    ("matrix_norm-nuc", lambda x: tp.sum(L.matrix_norm(x, ord="nuc")),
     lambda x: jnp.sum(JL.matrix_norm(x, ord="nuc")), WIDE),
    ("matrix_norm-2", lambda x: tp.sum(L.matrix_norm(x, ord=2)),
     lambda x: jnp.sum(JL.matrix_norm(x, ord=2)), TALL),
    ("matrix_norm-1", lambda x: tp.sum(L.matrix_norm(x, ord=1)),
     lambda x: jnp.sum(JL.matrix_norm(x, ord=1)), TALL),
    ("vector_norm-2", lambda x: tp.sum(L.vector_norm(x)), lambda x: jnp.sum(JL.vector_norm(x)), TALL),
    ("vector_norm-3", lambda x: tp.sum(L.vector_norm(x, ord=3, axis=-1)),
     lambda x: jnp.sum(JL.vector_norm(x, ord=3, axis=-1)), TALL),
    ("matmul", lambda x: _ours(tp.matmul(x, TALL.T), W4.T[:3]),
     lambda x: _theirs(jnp.matmul(x, TALL.T), W4.T[:3]), TALL[:3]),
    ("vecdot", lambda x: _ours(tp.vecdot(x, TALL), W4[:, 0]),
     lambda x: _theirs(jnp.vecdot(x, TALL), W4[:, 0]), TALL),
    ("tensordot", lambda x: _ours(tp.tensordot(x, SQUARE[0], axes=1), W4),
     lambda x: _theirs(jnp.tensordot(x, SQUARE[0], axes=1), W4), TALL),
    ("trace", lambda x: _ours(L.trace(x), W23[0, :2]), lambda x: _theirs(jnp.trace(x, axis1=-2, axis2=-1),
                                                                          W23[0, :2]), SQUARE),
    ("outer", lambda x: _ours(L.outer(x, TALL[1]), W3[0]), lambda x: _theirs(jnp.outer(x, TALL[1]), W3[0]),
     TALL[0]),
    ("cross", lambda x: _ours(L.cross(x, TALL[:2]), W3[0, :2]),
     lambda x: _theirs(jnp.cross(x, TALL[:2]), W3[0, :2]), TALL[2:]),
]

#: the kernels' second derivatives: (id of a case above)
SECOND_ORDER = ["cholesky", "eigh", "eigvalsh", "eig", "eigvals", "inv", "slogdet", "solve-a", "qr-tall",
                "svd-tall", "svd-wide", "svdvals-tall", "svdvals-wide", "det"]

C2 = {"cholesky": W3, "cholesky-upper": W3, "eigh": W3, "inv": W3, "det": W3, "slogdet": W3, "solve-a": W3,
      "qr-tall": W4, "svd-tall": W4, "svd-wide": W3[:, :2], "eigvalsh": W3, "svdvals-tall": W4,
      "svdvals-wide": W3[:, :2], "eig": W3, "eigvals": W3}


def _agree(got, want, failures, name):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or not np.allclose(got, want, rtol=1e-6, atol=1e-6):
        off = np.abs(got - want).max() if got.shape == want.shape else (got.shape, want.shape)
        failures.append(f"{name}: {got.dtype} vs {want.dtype}, off by {off}")


def _disagreements(cases):
    """What tp.grad and jax.grad (in 64 bits) disagree on, over (id, ours, theirs, input)."""
    failures: list[str] = []
    for name, ours, theirs, x in cases:
        got = tp.grad(ours)(tp.asarray(x)).numpy()
        with jax.enable_x64(True):
            want = jax.grad(theirs)(jnp.asarray(x))
        _agree(got, want, failures, name)
    return failures


@pytest.mark.slow
def test_complex_gradients_agree_with_jax_grad():
    failures = _disagreements(CASES)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_complex_second_derivatives_agree_with_jax():
    def first(f, w, lib, grad):  # a real-valued function of the gradient of f
        def g(z):
            d = grad(f)(z)
            return lib.sum(lib.real(d) * w) + lib.sum(lib.imag(d) * w)
        return g

    cases = [(name, first(ours, C2[name], tp, tp.grad), first(theirs, C2[name], jnp, jax.grad), x)
             for name, ours, theirs, x in CASES if name in SECOND_ORDER]
    failures = _disagreements(cases)
    assert not failures, "\n".join(failures)


def test_complex64_gradients_keep_their_dtype():
    x = tp.asarray(HPD[0].astype(np.complex64))
    for f in (lambda z: tp.sum(tp.real(L.cholesky(z))), lambda z: tp.sum(L.eigvalsh(z)),
              lambda z: tp.sum(L.svdvals(z)), lambda z: tp.sum(L.slogdet(z).logabsdet),
              lambda z: tp.sum(tp.real(L.eigvals(z))), lambda z: tp.sum(tp.abs(L.eig(z).eigenvectors))):
        assert tp.grad(f)(x).dtype is tp.complex64
