"""The discrete Fourier transforms (numpy.fft, pocketfft): Fft, Ifft, Rfft, Irfft over the
``axes`` attribute with lengths ``s`` and ``norm``, each one call of numpy's n-d transform. The
result is cast back to the spec's dtype (numpy computes single precision as such, but says
nothing of it for every version)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}
_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def _transform(fn: Callable[..., Any], out_dtype: Callable[[Any], Any]) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        (x,) = inputs
        out = fn(x, s=attrs["s"], axes=attrs["axes"], norm=attrs["norm"])
        return np.asarray(out, dtype=out_dtype(x.dtype))
    kernel.__name__ = fn.__name__
    return kernel


def _same(dtype: Any) -> Any:
    return dtype


KERNELS: dict[str, Callable[..., Any]] = {
    "Fft": _transform(np.fft.fftn, _same),
    "Ifft": _transform(np.fft.ifftn, _same),
    "Rfft": _transform(np.fft.rfftn, _COMPLEX_OF.__getitem__),
    "Irfft": _transform(np.fft.irfftn, _REAL_OF.__getitem__),
}
