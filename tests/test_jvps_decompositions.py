"""JVP rules of the decompositions and solvers: tp.jvp through tp.linalg against jax.jvp in
float64 (complex where JAX's rule is the same) on both backends, on well-conditioned inputs
(positive definite for cholesky and eigh, distinct eigen- and singular values), through
functions the sign (phase) choices of vectors do not move; each rule against its gradient
transposed; hvp against jax's; the refused cases raise as the gradients do."""

from __future__ import annotations

import numpy as np
import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jnp

pytestmark = checks.ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS
L = tp.linalg


def _spd(n, batch=(), complex_=False):
    a = checks.RNG.standard_normal(batch + (n, n))
    if complex_:
        a = a + 1j * checks.RNG.standard_normal(batch + (n, n))
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


SPD, SPD_C = _spd(3, (2,)), _spd(3, complex_=True)
SQUARE = checks.RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
SQUARE_C = checks.RNG.standard_normal((3, 3)) + 1j * checks.RNG.standard_normal((3, 3)) + 3 * np.eye(3)
TALL, WIDE = checks.RNG.standard_normal((4, 3)), checks.RNG.standard_normal((2, 2, 3))
TALL_C = TALL + 1j * checks.RNG.standard_normal((4, 3))
B = checks.RNG.standard_normal((3, 2))
# real matrices with real, distinct eigenvalues (P diag(w) P^-1): their eigenvectors are real, fixed
# up to sign, so Eig's rule and its transposed gradient agree for any cotangent. Complex
# eigenvectors are fixed only up to a phase, and the two agree only on phase-invariant
# cotangents (test_jvp_matches_jax checks those against jax).
_P = np.random.default_rng(7).standard_normal((2, 3, 3)) + 3 * np.eye(3)
REAL_EIGS = _P @ (np.array([1.0, 2.0, 4.0])[:, None] * np.linalg.inv(_P))


def lower(x):
    """What the kernels reading the lower triangle see of x, as a Hermitian matrix."""
    low = jnp.tril(x, -1)
    return (
        low
        + jnp.conj(jnp.swapaxes(low, -1, -2))
        + jnp.real(jnp.diagonal(x, 0, -2, -1))[..., None] * jnp.eye(x.shape[-1])
    )


def _jeig(x):
    """jax's eig with the eigenvectors' derivatives (an opt-in: distinct eigenvalues assumed)."""
    from jax import lax

    return lax.linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)


CASES = [  # (id, tensorplug function, jax function, primals)
    ("cholesky", L.cholesky, lambda x: jnp.linalg.cholesky(lower(x)), (SPD,)),
    (
        "eigh",
        lambda x: (L.eigh(x).eigenvalues, L.eigh(x).eigenvectors ** 2),
        lambda x: (jnp.linalg.eigh(lower(x))[0], jnp.linalg.eigh(lower(x))[1] ** 2),
        (SPD,),
    ),
    (
        "eigh-complex",
        lambda x: (L.eigh(x).eigenvalues, tp.abs(L.eigh(x).eigenvectors) ** 2),
        lambda x: (jnp.linalg.eigh(lower(x))[0], jnp.abs(jnp.linalg.eigh(lower(x))[1]) ** 2),
        (SPD_C,),
    ),
    ("eigvalsh", L.eigvalsh, lambda x: jnp.linalg.eigvalsh(lower(x)), (SPD,)),
    (
        "eig",
        lambda x: (L.eig(x).eigenvalues, tp.abs(L.eig(x).eigenvectors) ** 2),
        lambda x: (_jeig(x)[0], jnp.abs(_jeig(x)[1]) ** 2),
        (SQUARE,),
    ),
    (
        "eig-complex",
        lambda x: (L.eig(x).eigenvalues, tp.abs(L.eig(x).eigenvectors) ** 2),
        lambda x: (_jeig(x)[0], jnp.abs(_jeig(x)[1]) ** 2),
        (SQUARE_C,),
    ),
    ("eigvals", L.eigvals, lambda x: jnp.linalg.eigvals(x), (SQUARE,)),
    ("inv-complex", L.inv, jnp.linalg.inv, (SQUARE_C,)),
    ("det-complex", L.det, jnp.linalg.det, (SQUARE_C,)),
    ("slogdet", lambda x: tuple(L.slogdet(x)), lambda x: tuple(jnp.linalg.slogdet(x)), (SQUARE,)),
    ("slogdet-complex", lambda x: tuple(L.slogdet(x)), lambda x: tuple(jnp.linalg.slogdet(x)), (SQUARE_C,)),
    ("solve", L.solve, jnp.linalg.solve, (SQUARE, B)),
    (
        "qr-complex",
        lambda x: tuple(tp.abs(m) ** 2 for m in L.qr(x)),
        lambda x: tuple(jnp.abs(m) ** 2 for m in jnp.linalg.qr(x)),
        (TALL_C,),
    ),
    (
        "qr-square-complete",
        lambda x: L.qr(x, mode="complete").R ** 2,
        lambda x: jnp.linalg.qr(x, mode="complete")[1] ** 2,
        (SQUARE[0],),
    ),
    (
        "svd-wide",
        lambda x: tuple(m**2 for m in L.svd(x, full_matrices=False)),
        lambda x: tuple(m**2 for m in jnp.linalg.svd(x, full_matrices=False)),
        (WIDE[0],),
    ),
    (
        "svd-complex",
        lambda x: tuple(tp.abs(m) ** 2 for m in L.svd(x, full_matrices=False)),
        lambda x: tuple(jnp.abs(m) ** 2 for m in jnp.linalg.svd(x, full_matrices=False)),
        (TALL_C,),
    ),
    ("svdvals", L.svdvals, lambda x: jnp.linalg.svd(x, compute_uv=False), (WIDE,)),
    ("svdvals-complex", L.svdvals, lambda x: jnp.linalg.svd(x, compute_uv=False), (TALL_C,)),
]


@pytest.mark.parametrize(("ours", "theirs", "primals"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_jvp_matches_jax(ours, theirs, primals):
    checks.assert_jvp_matches_jax(ours, theirs, *primals)


RULES = [  # (kernel, inputs, attrs)
    ("Cholesky", (SPD,), {}),
    ("Eigh", (SPD[0],), {}),
    ("Eigvalsh", (SPD,), {}),
    ("Eig", (REAL_EIGS,), {}),
    ("Eigvals", (SQUARE_C,), {}),
    ("Inv", (SQUARE,), {}),
    ("Det", (SQUARE_C,), {}),
    ("Slogdet", (SQUARE,), {}),
    ("Solve", (SQUARE, np.stack([B, B * 2])), {}),
    ("Qr", (TALL,), {"mode": "reduced"}),
    ("Svd", (WIDE,), {"full_matrices": False}),
    ("Svdvals", (TALL,), {}),
]


@pytest.mark.parametrize(("name", "inputs", "attrs"), RULES, ids=[r[0] for r in RULES])
def test_rule_matches_transposed_gradient(name, inputs, attrs):
    checks.assert_rule_matches_transposed(name, inputs, attrs)


def test_hvp_matches_jax():
    w = checks.RNG.standard_normal((3, 3))
    checks.assert_hvp_matches_jax(
        lambda x: tp.sum(L.inv(x) * w) + tp.sum(L.slogdet(x).logabsdet) + tp.sum(L.svdvals(x)),
        lambda x: (
            jnp.sum(jnp.linalg.inv(x) * w)
            + jnp.sum(jnp.linalg.slogdet(x)[1])
            + jnp.sum(jnp.linalg.svd(x, compute_uv=False))
        ),
        SQUARE[0],
    )


@pytest.mark.parametrize(
    ("f", "x", "pattern"),
    [
        (lambda x: L.qr(x).Q, WIDE[0], "Qr is defined for M >= N"),
        (lambda x: L.qr(x, mode="complete").Q, TALL, "Qr is defined for M >= N"),
        (lambda x: L.svd(x).U, TALL, "Svd with full_matrices=True is defined for square"),
    ],
    ids=["qr-wide", "qr-complete-tall", "svd-full-tall"],
)
def test_unsupported_jvps_raise_autodiff_error(f, x, pattern):
    with pytest.raises(tp.AutodiffError, match=f"JVP of {pattern}"):
        tp.jvp(f, (tp.asarray(x),), (tp.asarray(x),))
