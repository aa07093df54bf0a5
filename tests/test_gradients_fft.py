"""Gradients of the Fft, Ifft, Rfft and Irfft kernels on each backend: each kernel's cotangent
against jax.vjp of jax.numpy.fft's transform (JAX's convention for complex numbers), complex
cotangents included, and tp.grad through the tp.fft functions, from real input to a real loss
through complex spectra, against finite differences to the second and third order."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.families._common.gradient_util import kernel
from tensorplug.registry.gradients import get_gradient
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")

F = tp.fft
RNG = np.random.default_rng(13)
X = RNG.standard_normal((3, 5))
W = RNG.standard_normal((3, 5)) + 1j * RNG.standard_normal((3, 5))

#: (kernel, input shape, axes, s): lengths that pad and trim, odd and even, axes out of order
VJP_CASES = [("Fft", (3, 4), (1,), (6,)), ("Ifft", (2, 3, 4), (2, 0), (5, 3)), ("Rfft", (3, 4), (1,), (4,)),
             ("Rfft", (2, 3, 4), (2, 0), (3, 3)), ("Irfft", (3, 3), (1,), (4,)),
             ("Irfft", (4, 3), (1, 0), (5, 3))]


def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


@pytest.mark.parametrize(("name", "shape", "axes", "s"), VJP_CASES, ids=str)
def test_kernel_gradients_agree_with_jax_vjp(name, shape, axes, s):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    transform = {"Fft": jnp.fft.fftn, "Ifft": jnp.fft.ifftn, "Rfft": jnp.fft.rfftn,
                 "Irfft": jnp.fft.irfftn}[name]
    for norm in ("backward", "ortho", "forward"):
        x = RNG.standard_normal(shape) if name == "Rfft" else _complex(shape)
        with jax.enable_x64(True):
            y, vjp = jax.vjp(lambda v, norm=norm: transform(v, s=s, axes=axes, norm=norm), jnp.asarray(x))
            g = RNG.standard_normal(y.shape) if name == "Irfft" else _complex(y.shape)
            want = np.asarray(vjp(jnp.asarray(g))[0])
        attrs = {"axes": axes, "s": s, "norm": norm}
        xt = tp.asarray(x)
        kernel(name, xt, **attrs)
        got = get_gradient(name).grad_func(tp.asarray(g), (xt,), attrs)["x"]().numpy()
        assert got.dtype == want.dtype, (norm, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=norm)


CASES = [  # (id, function of a real input to a real output, order)
    ("rfft-irfft", lambda x: F.irfft(F.rfft(x) * W[:, :3], n=5), 3),
    ("rfft-pad-trim", lambda x: F.irfft(F.rfft(x, n=8, norm="ortho") * W[:, :5], n=4, norm="forward"), 2),
    ("rfftn-irfftn", lambda x: F.irfftn(F.rfftn(x, axes=(1, 0)) * W[:2], s=(5, 3), axes=(1, 0)), 2),
    ("fft-ifft", lambda x: F.irfft(F.ifft(F.fft(F.rfft(x), n=4) * W[:, :4], norm="ortho", n=3), n=6), 2),
    ("fftn-ifftn",
     lambda x: F.irfftn(F.fftn(F.rfftn(x), s=(2, 3), axes=(0, 1), norm="forward") * W[:2, :3]), 2),
    ("hfft-ihfft", lambda x: F.hfft(F.ihfft(x, n=6) * W[:, :4], n=5, norm="ortho"), 2),
    ("nonlinear", lambda x: tp.sin(F.irfft(F.rfft(x * x) * W[:, :3], n=5)), 2),
    # (order 1: the second order needs Cast's gradient from complex to real, which waits on tp.real)
    ("abs-spectrum", lambda x: tp.abs(F.fft(F.rfft(x) * W[:, :3], n=4)), 1),
]


@pytest.mark.parametrize(("f", "order"), [pytest.param(f, o, id=i) for i, f, o in CASES])
def test_gradients_match_finite_differences(f, order):
    check_gradients(f, X, order=order)


def test_losses_of_spectra_agree_with_jax_grad():
    """Real input, complex spectra, a real loss: tp.grad gives jax.grad's values (JAX's convention
    for the complex intermediates, Abs's included)."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = RNG.standard_normal(6)
    w = RNG.standard_normal(6)
    cases = [
        (lambda t: tp.sum(tp.abs(F.rfft(t - tp.mean(t)))),
         lambda t: jnp.sum(jnp.abs(jnp.fft.rfft(t - jnp.mean(t))))),
        (lambda t: tp.sum(tp.abs(F.fft(F.rfft(t * w), n=6, norm="ortho")) ** 3),
         lambda t: jnp.sum(jnp.abs(jnp.fft.fft(jnp.fft.rfft(t * w), n=6, norm="ortho")) ** 3)),
        (lambda t: tp.sum(F.hfft(F.ihfft(t) * W[0, :4], n=7) * tp.asarray(np.arange(7.0))),
         lambda t: jnp.sum(jnp.fft.hfft(jnp.fft.ihfft(t) * W[0, :4], n=7) * jnp.arange(7.0))),
    ]
    for ours, theirs in cases:
        got = tp.grad(ours)(tp.asarray(x)).numpy()
        with jax.enable_x64(True):
            want = np.asarray(jax.grad(theirs)(jnp.asarray(x)))
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)
