"""Batching rules of the Fourier transforms: the batch axis first, the transformed axes
shifted past it."""

from __future__ import annotations

from tensorplug.families._common.batching_util import with_axes

with_axes("Fft", "Ifft", "Rfft", "Irfft", attr="axes")
