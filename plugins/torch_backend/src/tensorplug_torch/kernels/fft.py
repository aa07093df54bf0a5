"""The discrete Fourier transforms (``torch.fft``): Fft, Ifft, Rfft, Irfft over the ``axes``
attribute with lengths ``s`` and ``norm``, each one call of torch's n-d transform, which keeps
single precision single (complex64 from float32). An empty input (torch's MKL transforms
refuse a zero-size batch) transforms to zeros: its values, zero-padded to ``s``, are all 0."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]

_COMPLEX_OF = {torch.float32: torch.complex64, torch.float64: torch.complex128}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def _transform(fn: Callable[..., torch.Tensor], out_dtype: Callable[[torch.dtype], torch.dtype],
               half_last: bool = False) -> Callable[..., torch.Tensor]:
    """The kernel of `fn`; `half_last`: the last axis transformed keeps s // 2 + 1 values."""

    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
        x = inputs[0]
        if x.numel():
            return fn(x, s=attrs["s"], dim=attrs["axes"], norm=attrs["norm"])
        shape = list(x.shape)
        for axis, n in zip(attrs["axes"], attrs["s"]):
            shape[axis] = n
        if half_last:
            shape[attrs["axes"][-1]] = attrs["s"][-1] // 2 + 1
        return x.new_zeros(shape, dtype=out_dtype(x.dtype))

    kernel.__name__ = fn.__name__
    return kernel


def _same(dtype: torch.dtype) -> torch.dtype:
    return dtype


KERNELS: dict[str, Callable[..., Any]] = {
    "Fft": _transform(torch.fft.fftn, _same),
    "Ifft": _transform(torch.fft.ifftn, _same),
    "Rfft": _transform(torch.fft.rfftn, _COMPLEX_OF.__getitem__, half_last=True),
    "Irfft": _transform(torch.fft.irfftn, _REAL_OF.__getitem__),
}
