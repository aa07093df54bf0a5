"""Default gradients of the discrete Fourier transforms: Fft, Ifft, Rfft, Irfft. They follow
JAX's convention for complex numbers (the cotangent of a linear map is its transpose, not its
adjoint; jax/_src/lax/fft.py), so they agree with jax.vjp.

The DFT matrix is symmetric, so Fft's cotangent is Fft of the upstream gradient with the same
norm, and Ifft's is Ifft; the input's padding or trimming to the lengths ``s`` transposes to
trimming or padding back. Rfft is Fft of the (real) input kept to its first s[-1] // 2 + 1
terms: its cotangent is the real part of Fft of the zero-padded gradient, computed as Irfft
(unscaled) of the gradient with the Hermitian weights undone (1/2 but on the zero and Nyquist
terms), its index reversed. Irfft's is JAX's: conj(Rfft(g)) times the weights (1, 2, ..., 2,
and 1 on the Nyquist term for even lengths) and 1/n's scaling; conj(Rfft(g)) of real g is Rfft
of g with its index reversed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..dtypes import real_of
from ..ops._convert import asarray
from ..ops.elementwise import multiply
from ..ops.fft import fit_length, reverse_index
from ..tensor import Tensor
from ._util import gradient, kernel

Grads = Mapping[str, Callable[[], Tensor]]


def _fit(g: Tensor, axes: Sequence[int], shape: Sequence[int]) -> Tensor:
    """`g` trimmed or zero-padded along `axes` to `shape`'s sizes (the transpose of the input's
    fitting to the transform's lengths)."""
    for a in axes:
        g = fit_length(g, a, shape[a])
    return g


def _scale(norm: str, s: Sequence[int], forward: bool) -> float:
    """The factor the transform of lengths `s` applies in `norm` (forward or inverse)."""
    n = math.prod(s)
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") == forward else 1.0


def _weights(values: np.ndarray, n: int, axis: int, ndim: int, like: Tensor) -> Tensor:
    """`values` (one per term of the halved last axis) shaped to broadcast along `axis`."""
    shape = [1] * ndim
    shape[axis] = len(values)
    return asarray(values.reshape(shape).astype(real_of(like.dtype).numpy))


def _hermitian(n: int) -> np.ndarray:
    """How often each of the n // 2 + 1 terms of a real signal's spectrum counts in the full
    one: 1 for the zero term (and the Nyquist term of an even n), 2 for the others."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return w


def _complex_transform(name: str) -> None:
    @gradient(name, inputs=("x",))
    def grad(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        (x,) = saved
        axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]
        return {"x": lambda: _fit(kernel(name, dy, axes=axes, s=s, norm=norm), axes, x.shape)}


_complex_transform("Fft")
_complex_transform("Ifft")


@gradient("Rfft", inputs=("x",))
def _rfft(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]

    def grad() -> Tensor:
        unweighted = multiply(dy, _weights(1.0 / _hermitian(s[-1]), s[-1], axes[-1], dy.ndim, dy))
        full = kernel("Irfft", unweighted, axes=axes, s=s, norm="forward")  # unscaled
        return _fit(multiply(reverse_index(full, axes), _scale(norm, s, True)), axes, x.shape)

    return {"x": grad}


@gradient("Irfft", inputs=("x",))
def _irfft(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]

    def grad() -> Tensor:
        spectrum = kernel("Rfft", reverse_index(dy, axes), axes=axes, s=s, norm="backward")
        weighted = multiply(spectrum, _weights(_hermitian(s[-1]), s[-1], axes[-1], dy.ndim, spectrum))
        return _fit(multiply(weighted, _scale(norm, s, False)), axes, x.shape)

    return {"x": grad}
