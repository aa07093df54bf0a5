"""JVP rules of the discrete Fourier transforms: each is (real-)linear in its input, so the
tangent is the transform of the tangent (JAX's ``ad.deflinear`` of fft_p)."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import linear

linear("Fft", "Ifft", "Rfft", "Irfft")
