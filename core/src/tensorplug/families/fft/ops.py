"""The discrete Fourier transforms of ``tp.fft`` (the Python Array API's fft extension, 2025.12).

fft/ifft/fftn/ifftn take complex input (real floating input is made complex first); rfft/rfftn
and ihfft take real floating input; irfft/irfftn and hfft give real output. Output precision
follows the input's: complex64 from float32/complex64, complex128 from float64/complex128.
Integer and bool inputs are refused (cast them first). ``n``/``s`` pad with zeros or trim the
input along the transformed axes; ``norm`` is 'backward', 'ortho' or 'forward'.
hfft, ihfft (numpy.fft's formulas), the frequencies and the shifts are compositions of the four
kernels and other ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from tensorplug.backends.lifecycle import active_backend
from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import complex_of, default_float
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype, caller, device_put
from tensorplug.families.creation.ops import arange, new_dtype
from tensorplug.families.elementwise.ops import conj, multiply
from tensorplug.families.fft.spec import FFT_COMPLEX, FFT_FLOATS, NORMS, fft_axes
from tensorplug.families.manipulation.ops import concat, flip, pad, roll

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift", "fit_length", "reverse_index", "SWAPPED_NORMS"]

Norm = Literal["backward", "ortho", "forward"]

_FFT = caller("Fft")
_IFFT = caller("Ifft")
_RFFT = caller("Rfft")
_IRFFT = caller("Irfft")
#: the norm of the transform in the other direction that scales as much
SWAPPED_NORMS = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_SWAPPED = SWAPPED_NORMS


# -- argument checks ----------------------------------------------------------------------------
def _norm(norm: Any, op: str) -> str:
    if not isinstance(norm, str) or norm not in NORMS:
        raise ArgumentError(f"{op}: norm must be one of {', '.join(map(repr, NORMS))}, got "
                            f"{valid.shown(norm)}.")
    return norm


def _half(t: Tensor, op: str) -> None:
    if t._dtype.is_floating and t._dtype not in FFT_FLOATS:
        raise DTypeError(f"{op} computes in float32 or float64 (and their complex dtypes), got "
                         f"{t._dtype.name}; cast first, e.g. x.astype(tp.float32).")


def _complex(x: Any, op: str) -> Tensor:
    """`x` as a complex Tensor of at least one dimension (real floating input is made complex)."""
    t = asarray(x)
    _half(t, op)
    if t._dtype in FFT_FLOATS:
        t = astype(t, complex_of(t._dtype))
    if t._dtype not in FFT_COMPLEX:
        raise DTypeError(f"{op} needs a complex (or real floating) input, got {t._dtype.name}; cast first, "
                         "e.g. x.astype(tp.complex128).")
    return _at_least_1d(t, op)


def _real(x: Any, op: str) -> Tensor:
    t = asarray(x)
    _half(t, op)
    if t._dtype not in FFT_FLOATS:
        raise DTypeError(f"{op} needs a real floating-point input, got {t._dtype.name}; cast first, e.g. "
                         "x.astype(tp.float64) (for complex input use fft).")
    return _at_least_1d(t, op)


def _at_least_1d(t: Tensor, op: str) -> Tensor:
    if t.ndim == 0:
        raise ShapeError(f"{op} needs an input of at least one dimension, got a 0-d one; reshape it to (1,).")
    return t


def _length(n: Any, default: int, op: str) -> int:
    size = default if n is None else valid.integer(n, op, "n")
    if size < 1:
        raise ShapeError(f"{op}: the transform length n must be >= 1, got {size}"
                         f"{' (the default for this input)' if n is None else ''}; pass n >= 1.")
    return size


def _one_axis(x: Tensor, axis: Any, op: str) -> int:
    return fft_axes((valid.integer(axis, op, "axis"),), x.ndim, op)[0]


def _axes_and_lengths(x: Tensor, s: Any, axes: Any, op: str, *, halved: bool = False
                      ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes and lengths of an n-d transform: every axis if `axes` is None; each length of `s`
    (-1: the input's size; for an inverse real transform (`halved`), 2 * (m - 1) on the last)."""
    if axes is None:
        if s is not None:
            raise ArgumentError(f"{op}: s needs axes to say which axes its lengths are for; pass axes too.")
        axes_t = tuple(range(x.ndim))
    else:
        if isinstance(axes, (int, str)) or not isinstance(axes, Sequence):
            raise ArgumentError(f"{op}: axes must be a sequence of ints, got {valid.shown(axes)}.")
        axes_t = fft_axes(tuple(valid.integer(a, op, "axes") for a in axes), x.ndim, op)
    if not axes_t:
        raise ShapeError(f"{op} needs at least one axis to transform; pass axes with one or more axes.")
    sizes = [x.shape[a] for a in axes_t]
    if halved:
        sizes[-1] = 2 * (sizes[-1] - 1)
    if s is not None:
        if isinstance(s, (int, str)) or not isinstance(s, Sequence):
            raise ArgumentError(f"{op}: s must be a sequence of ints, got {valid.shown(s)}.")
        given = tuple(valid.integer(v, op, "s") for v in s)
        if len(given) != len(axes_t):
            raise ShapeError(f"{op}: s {given} needs one length per axis of axes {tuple(axes)}.")
        sizes = [m if v == -1 else v for v, m in zip(given, sizes)]
    for v in sizes:
        if v < 1:
            raise ShapeError(f"{op}: the transform lengths must be >= 1, got {tuple(sizes)}; pass s with "
                             "lengths >= 1.")
    return axes_t, tuple(sizes)


def _run(kernel: Any, x: Tensor, axes: tuple[int, ...], s: tuple[int, ...], norm: str,
         op: str) -> Tensor:
    # the input cut or zero-padded to the lengths `s` must fit the backend (XLA aborts the
    # process on a shape past int64)
    padded = list(x.shape)
    for a, n in zip(axes, s):
        padded[a] = n
    valid.checked_size(tuple(padded), x._backend, op)
    out: Tensor = kernel([x], {"axes": axes, "s": s, "norm": norm})
    return out


# -- helpers shared with the gradients ---------------------------------------------------------
def fit_length(x: Tensor, axis: int, n: int) -> Tensor:
    """`x` trimmed or zero-padded to length `n` along `axis` (numpy.fft's rule for n)."""
    m = x.shape[axis]
    if n < m:
        return x[(slice(None),) * axis + (slice(0, n),)]
    if n > m:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (0, n - m)
        return pad(x, widths)
    return x


def reverse_index(x: Tensor, axes: Sequence[int]) -> Tensor:
    """y[k] = x[-k mod n] along each of `axes`: conj(F x) = F reverse_index(x) for real x."""
    axes = tuple(axes)
    return roll(flip(x, axis=axes), (1,) * len(axes), axis=axes)


# -- the transforms ---------------------------------------------------------------------------
def fft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The one-dimensional discrete Fourier transform along `axis`, of length `n`."""
    t = _complex(x, "fft")
    a = _one_axis(t, axis, "fft")
    return _run(_FFT, t, (a,), (_length(n, t.shape[a], "fft"),), _norm(norm, "fft"), "fft")


def ifft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The one-dimensional inverse discrete Fourier transform along `axis`, of length `n`."""
    t = _complex(x, "ifft")
    a = _one_axis(t, axis, "ifft")
    return _run(_IFFT, t, (a,), (_length(n, t.shape[a], "ifft"),), _norm(norm, "ifft"), "ifft")


def fftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: Norm = "backward") -> Tensor:
    """The n-dimensional discrete Fourier transform over `axes` (all if None), of lengths `s`."""
    t = _complex(x, "fftn")
    return _run(_FFT, t, *_axes_and_lengths(t, s, axes, "fftn"), _norm(norm, "fftn"), "fftn")


def ifftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Tensor:
    """The n-dimensional inverse discrete Fourier transform over `axes`, of lengths `s`."""
    t = _complex(x, "ifftn")
    return _run(_IFFT, t, *_axes_and_lengths(t, s, axes, "ifftn"), _norm(norm, "ifftn"), "ifftn")


def rfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The discrete Fourier transform of real `x` along `axis`: the n // 2 + 1 non-negative
    frequency terms."""
    t = _real(x, "rfft")
    a = _one_axis(t, axis, "rfft")
    return _run(_RFFT, t, (a,), (_length(n, t.shape[a], "rfft"),), _norm(norm, "rfft"), "rfft")


def irfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The inverse of rfft: real output of length `n` (default 2 * (m - 1)) along `axis`."""
    t = _complex(x, "irfft")
    a = _one_axis(t, axis, "irfft")
    size = _length(n, 2 * (t.shape[a] - 1), "irfft")
    return _run(_IRFFT, t, (a,), (size,), _norm(norm, "irfft"), "irfft")


def rfftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: Norm = "backward") -> Tensor:
    """The n-dimensional discrete Fourier transform of real `x`; the last of `axes` is halved."""
    t = _real(x, "rfftn")
    return _run(_RFFT, t, *_axes_and_lengths(t, s, axes, "rfftn"), _norm(norm, "rfftn"), "rfftn")


def irfftn(x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: Norm = "backward") -> Tensor:
    """The inverse of rfftn: real output of lengths `s` (the last defaults to 2 * (m - 1))."""
    t = _complex(x, "irfftn")
    axes_t, sizes = _axes_and_lengths(t, s, axes, "irfftn", halved=True)
    return _run(_IRFFT, t, axes_t, sizes, _norm(norm, "irfftn"), "irfftn")


def hfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The discrete Fourier transform of a signal with Hermitian symmetry, given by its first
    half `x`: real output of length `n` (default 2 * (m - 1)) along `axis`."""
    t = _complex(x, "hfft")
    a = _one_axis(t, axis, "hfft")
    size = _length(n, 2 * (t.shape[a] - 1), "hfft")
    # irfft(conj(x)) with the norm's direction swapped (numpy.fft's formula)
    return _run(_IRFFT, conj(t), (a,), (size,), _SWAPPED[_norm(norm, "hfft")], "hfft")


def ihfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Tensor:
    """The inverse of hfft: the n // 2 + 1 first terms of the Hermitian spectrum of real `x`."""
    t = _real(x, "ihfft")
    a = _one_axis(t, axis, "ihfft")
    size = _length(n, t.shape[a], "ihfft")
    # conj(rfft(x)) with the norm's direction swapped (numpy.fft's formula)
    return conj(_run(_RFFT, t, (a,), (size,), _SWAPPED[_norm(norm, "ihfft")], "ihfft"))


# -- frequencies and shifts -------------------------------------------------------------------
def _frequencies(op: str, n: Any, d: Any, dtype: Any, device: Any) -> tuple[int, float, Any]:
    size = valid.integer(n, op, "n")
    if size < 1:
        raise ShapeError(f"{op}: the window length n must be >= 1, got {size}.")
    valid.checked_size((size,), active_backend(), op)  # (and 1 / (d * n) a float)
    spacing = valid.number(d, op, "d")
    if spacing == 0 or spacing != spacing:
        raise ArgumentError(f"{op}: the sample spacing d must be a nonzero number, got {d!r}.")
    dt = new_dtype(default_float if dtype is None else dtype, op)
    if not dt.is_floating:
        raise DTypeError(f"{op}: dtype must be a real floating-point dtype, got {dt.name}; pass e.g. "
                         "dtype=tp.float64.")
    return size, 1.0 / (spacing * size), dt


def _placed(t: Tensor, device: Any) -> Tensor:
    if device is None:
        return t
    return device_put(t, device)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies [0, 1, ..., -2, -1] / (d * n) of a transform of length `n`."""
    size, scale, dt = _frequencies("fftfreq", n, d, dtype, device)
    k = concat([arange((size + 1) // 2, dtype=dt), arange(-(size // 2), 0, dtype=dt)])
    return _placed(multiply(k, scale), device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies [0, 1, ..., n // 2] / (d * n) of rfft's output."""
    size, scale, dt = _frequencies("rfftfreq", n, d, dtype, device)
    return _placed(multiply(arange(size // 2 + 1, dtype=dt), scale), device)


def _shifted(x: Any, axes: Any, sign: int, op: str) -> Tensor:
    t = asarray(x)
    if axes is None:
        axes_t = tuple(range(t.ndim))
    elif isinstance(axes, Sequence) and not isinstance(axes, str):
        axes_t = fft_axes(tuple(valid.integer(a, op, "axes") for a in axes), t.ndim, op)
    else:
        axes_t = fft_axes((valid.integer(axes, op, "axes"),), t.ndim, op)
    if not axes_t:
        return t
    return roll(t, tuple(sign * (t.shape[a] // 2) for a in axes_t), axis=axes_t)


def fftshift(x: Any, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    """`x` with the zero-frequency term moved to the center of `axes` (all if None)."""
    return _shifted(x, axes, 1, "fftshift")


def ifftshift(x: Any, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of fftshift."""
    return _shifted(x, axes, -1, "ifftshift")
