"""Default gradients of the discrete Fourier transforms: Fft, Ifft, Rfft, Irfft. They follow
JAX's convention for complex numbers (the cotangent of a linear map is its transpose, not its
adjoint; jax/_src/lax/fft.py), so they agree with jax.vjp.

The DFT matrix is symmetric, so Fft's cotangent is Fft of the upstream gradient with the same
norm, and Ifft's is Ifft; the input's padding or trimming to the lengths ``s`` transposes to
trimming or padding back. Rfft is Fft of the (real) input kept to its first s[-1] // 2 + 1
terms: its cotangent is the real part of Fft of the zero-padded gradient, computed with Irfft
(which weighs the terms but the zero and Nyquist ones twice), its index reversed. Irfft's is
JAX's: conj(Rfft(g)) with the Hermitian weights (1, 2, ..., 2, and 1 on the Nyquist term for
even lengths) and Irfft's scaling; conj(Rfft(g)) of real g is Rfft of g with its index
reversed. No step does complex arithmetic (only the transforms, slicing, padding, concatenation
and real arithmetic), so the gradients run wherever the four kernels do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel
from tensorplug.families.elementwise.ops import add, multiply
from tensorplug.families.fft.ops import SWAPPED_NORMS as _SWAPPED
from tensorplug.families.fft.ops import fit_length, reverse_index
from tensorplug.families.manipulation.ops import concat

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


def _complex_transform(name: str) -> None:
    @gradient(name, inputs=("x",))
    def grad(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        (x,) = saved
        axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]
        return {"x": lambda: _fit(kernel(name, dy, axes=axes, s=s, norm=norm), axes, x.shape)}


_complex_transform("Fft")
_complex_transform("Ifft")


def _edges(g: Tensor, axis: int, n: int) -> Tensor:
    """`g` (n // 2 + 1 terms along `axis`) with only its zero term, and the Nyquist term of an
    even `n`, kept (the others zero): the terms a real signal's spectrum holds once."""
    m = g.shape[axis]
    zero = fit_length(_take(g, axis, 0, 1), axis, m)
    if n % 2 or m == 1:
        return zero
    return concat([_take(zero, axis, 0, m - 1), _take(g, axis, m - 1, m)], axis=axis)


def _take(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    return x[(slice(None),) * axis + (slice(start, stop),)]


@gradient("Rfft", inputs=("x",))
def _rfft(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """Re(F pad(dy)) = rev(sum_j Re(dy_j e^{+i...})), the unweighted sum being half of the
    unscaled Irfft of dy plus that of its edge terms (Irfft weighs the others twice)."""
    (x,) = saved
    axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]

    def grad() -> Tensor:
        def unscaled(g: Tensor) -> Tensor:
            return kernel("Irfft", g, axes=axes, s=s, norm="forward")

        full = add(unscaled(dy), unscaled(_edges(dy, axes[-1], s[-1])))
        return _fit(multiply(reverse_index(full, axes), 0.5 * _scale(norm, s, True)), axes, x.shape)

    return {"x": grad}


@gradient("Irfft", inputs=("x",))
def _irfft(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """JAX's: conj(Rfft(dy)) with Irfft's scaling (Rfft in the swapped norm), the terms other
    than the edges doubled (Rfft of 2 dy: no complex arithmetic)."""
    (x,) = saved
    axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]

    def grad() -> Tensor:
        flipped = reverse_index(dy, axes)
        swapped = _SWAPPED[norm]
        once = kernel("Rfft", flipped, axes=axes, s=s, norm=swapped)
        twice = kernel("Rfft", multiply(flipped, 2.0), axes=axes, s=s, norm=swapped)
        a, m = axes[-1], once.shape[axes[-1]]
        inner = m - 1 if s[-1] % 2 == 0 else m
        parts = [_take(once, a, 0, 1), _take(twice, a, 1, inner), _take(once, a, inner, m)]
        return _fit(concat([p for p in parts if p.shape[a]], axis=a), axes, x.shape)

    return {"x": grad}
