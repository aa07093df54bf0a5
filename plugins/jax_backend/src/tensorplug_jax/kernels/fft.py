"""The discrete Fourier transforms (jax.numpy.fft, XLA's FFT): Fft, Ifft, Rfft, Irfft over the
``axes`` attribute with lengths ``s`` and ``norm``, one compiled function per value of the
three attributes (they shape the computation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tensorplug_jax.kernels._jit import with_attrs

_STATIC = ("axes", "s", "norm")


def _fftn(x: Any, axes: tuple[int, ...], s: tuple[int, ...], norm: str) -> Any:
    return jnp.fft.fftn(x, s=s, axes=axes, norm=norm)


def _ifftn(x: Any, axes: tuple[int, ...], s: tuple[int, ...], norm: str) -> Any:
    return jnp.fft.ifftn(x, s=s, axes=axes, norm=norm)


def _rfftn(x: Any, axes: tuple[int, ...], s: tuple[int, ...], norm: str) -> Any:
    return jnp.fft.rfftn(x, s=s, axes=axes, norm=norm)


def _irfftn(x: Any, axes: tuple[int, ...], s: tuple[int, ...], norm: str) -> Any:
    return jnp.fft.irfftn(x, s=s, axes=axes, norm=norm)


KERNELS: dict[str, Callable[..., Any]] = {
    "Fft": with_attrs(_fftn, _STATIC),
    "Ifft": with_attrs(_ifftn, _STATIC),
    "Rfft": with_attrs(_rfftn, _STATIC),
    "Irfft": with_attrs(_irfftn, _STATIC),
}
