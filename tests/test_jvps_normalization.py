"""JVP rules of the normalization kernels (FusedBatchNorm in each of its five inputs, LRN, and
LRNGrad in dy and x) and of the Fourier transforms: tp.jvp through the public ops against
jax.jvp in float64 on both backends, each rule against its gradient transposed, hvp through
LRN's backward kernel against jax's."""

from __future__ import annotations

import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jax, jnp

pytestmark = checks.ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS

X = checks.RNG.standard_normal((2, 3, 5))
C = checks.RNG.standard_normal((5,))
VARIANCE = checks.RNG.uniform(0.5, 2.0, (5,))
LRN = {"depth_radius": 1, "bias": 1.5, "alpha": 0.4, "beta": 0.75}
Z = checks.RNG.standard_normal((3, 4)) + 1j * checks.RNG.standard_normal((3, 4))


def _jax_lrn(x, depth_radius, bias, alpha, beta):
    r, c = depth_radius, x.shape[-1]
    padded = jnp.pad(x * x, [(0, 0)] * (x.ndim - 1) + [(r, r)])
    window = sum(padded[..., k : k + c] for k in range(2 * r + 1))
    return x / (bias + alpha * window) ** beta


def _jax_lrn_grad(dy, x):
    return jax.vjp(lambda v: _jax_lrn(v, **LRN), x)[1](dy)[0]


CASES = [  # (id, tensorplug function, jax function, primals)
    (
        "batch_norm",
        lambda x, m, v, o, s: tp.nn.batch_norm(x, m, v, o, s, epsilon=0.01),
        lambda x, m, v, o, s: (x - m) * s / jnp.sqrt(v + 0.01) + o,
        (X, C, VARIANCE, C * 2, C + 3),
    ),
    (
        "batch_norm-x-only",
        lambda x: tp.nn.batch_norm(x, C, VARIANCE),
        lambda x: (x - C) / jnp.sqrt(VARIANCE + 1e-3),
        (X,),
    ),
    ("lrn", lambda x: tp.nn.local_response_normalization(x, **LRN), lambda x: _jax_lrn(x, **LRN), (X,)),
    (
        "lrn-radius0",
        lambda x: tp.nn.local_response_normalization(x, depth_radius=0),
        lambda x: _jax_lrn(x, 0, 1.0, 1.0, 0.5),
        (X,),
    ),
    ("lrn_grad", lambda dy, x: tp.run_kernel("LRNGrad", (dy, x, x), LRN), _jax_lrn_grad, (C + X, X)),
    ("fft", lambda z: tp.fft.fft(z, n=6), lambda z: jnp.fft.fft(z, n=6), (Z,)),
    (
        "ifft-ortho",
        lambda z: tp.fft.ifft(z, axis=0, norm="ortho"),
        lambda z: jnp.fft.ifft(z, axis=0, norm="ortho"),
        (Z,),
    ),
    ("rfft", lambda x: tp.fft.rfftn(x, axes=(0, 2)), lambda x: jnp.fft.rfftn(x, axes=(0, 2)), (X,)),
    (
        "irfft",
        lambda z: tp.fft.irfft(z, n=5, norm="forward"),
        lambda z: jnp.fft.irfft(z, n=5, norm="forward"),
        (Z,),
    ),
]


@pytest.mark.parametrize(("ours", "theirs", "primals"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_jvp_matches_jax(ours, theirs, primals):
    checks.assert_jvp_matches_jax(ours, theirs, *primals)


RULES = [  # (kernel, inputs, attrs)
    ("FusedBatchNorm", (X, C + 3, C, C * 0.5, VARIANCE), {"epsilon": 0.1}),
    ("LRN", (X,), LRN),
    ("LRNGrad", (C + X, X, X), LRN),
    ("Fft", (Z,), {"axes": (1,), "s": (4,), "norm": "backward"}),
    ("Ifft", (Z,), {"axes": (0, 1), "s": (3, 4), "norm": "forward"}),
    ("Rfft", (X,), {"axes": (2,), "s": (5,), "norm": "ortho"}),
    ("Irfft", (Z,), {"axes": (1,), "s": (6,), "norm": "backward"}),
]


@pytest.mark.parametrize(("name", "inputs", "attrs"), RULES, ids=[r[0] for r in RULES])
def test_rule_matches_transposed_gradient(name, inputs, attrs):
    checks.assert_rule_matches_transposed(name, inputs, attrs)


def test_hvp_through_lrn_grad():
    w = checks.RNG.standard_normal(X.shape)
    checks.assert_hvp_matches_jax(
        lambda x: tp.sum(tp.nn.local_response_normalization(x, **LRN) * w),
        lambda x: jnp.sum(_jax_lrn(x, **LRN) * w),
        X,
    )
