"""``tp.fft``: the Python Array API's fft extension (2025.12): discrete Fourier transforms
(fft, ifft, fftn, ifftn, rfft, irfft, rfftn, irfftn, hfft, ihfft), their sample frequencies
(fftfreq, rfftfreq) and the shifts of the zero frequency (fftshift, ifftshift).
"""

from __future__ import annotations

from tensorplug.families.fft.ops import (
           fft,
           fftfreq,
           fftn,
           fftshift,
           hfft,
           ifft,
           ifftn,
           ifftshift,
           ihfft,
           irfft,
           irfftn,
           rfft,
           rfftfreq,
           rfftn,
)

__all__ = ["fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft", "irfft",
           "irfftn", "rfft", "rfftfreq", "rfftn"]
