"""Kernel specs of the discrete Fourier transforms (``tp.fft``): Fft, Ifft, Rfft, Irfft.

Four kernels serve the fourteen functions of ``tp.fft``. Each transforms over the axes of its
``axes`` attribute (distinct non-negative ints, in the caller's order), with ``s`` the
transform's length along each (the input is zero-padded or trimmed to it first, numpy's
rule), and ``norm`` one of 'backward' (no scaling of the forward transform, 1/n on the
inverse), 'ortho' (1/sqrt(n) both ways) or 'forward' (1/n on the forward transform), with
n = prod(s):

- Fft / Ifft: complex in, same complex dtype out, sizes ``s`` along ``axes``;
- Rfft: real floating in, the complex dtype of its precision out; the last of ``axes`` keeps
  ``s[-1] // 2 + 1`` entries (the others being the conjugates of these);
- Irfft: the inverse of Rfft: complex in, the real dtype of its precision out, sizes ``s``
  along ``axes`` (the last axis of the input is read up to ``s[-1] // 2 + 1``; the imaginary
  parts of its zero and Nyquist entries are ignored).

fft/ifft/rfft/irfft are the one-axis cases, fftn/... the n-axes ones; hfft and ihfft are
composed of Irfft and Rfft in ``tensorplug.fft``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import COMPLEX_DTYPES, FLOAT_DTYPES, complex_of, real_of
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["NORMS", "as_norm", "as_lengths", "fft_axes", "FFT_FLOATS", "FFT_COMPLEX"]

NORMS = ("backward", "ortho", "forward")

#: the precisions the transforms compute in (pocketfft / XLA): single and double
FFT_FLOATS = tuple(d for d in FLOAT_DTYPES if d.itemsize >= 4)
FFT_COMPLEX = tuple(d for d in COMPLEX_DTYPES if real_of(d) in FFT_FLOATS)


def as_norm(value: Any) -> str:
    if not isinstance(value, str) or value not in NORMS:
        raise ValueError(f"norm must be one of {list(NORMS)}, got {value!r}")
    return value


def as_lengths(value: Any) -> tuple[int, ...]:
    """A tuple of transform lengths (each >= 1)."""
    lengths = tuple(as_int(v) for v in value)
    if any(n < 1 for n in lengths):
        raise ValueError(f"transform lengths must be >= 1, got {lengths}")
    return lengths


def fft_axes(axes: Sequence[int], ndim: int, op: str | None = None) -> tuple[int, ...]:
    """`axes` (ints in [-ndim, ndim), distinct) as non-negative ints in the given order."""
    out = []
    for a in axes:
        if type(a) is not int or not -ndim <= a < ndim:
            raise ShapeError(f"{op_prefix(op)}axis {a!r} is out of range for a {ndim}-d input; use an int in "
                             f"[{-ndim}, {ndim}).")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op_prefix(op)}axes {tuple(axes)} name an axis twice; name each axis once.")
    return tuple(out)


def _shape(infos: Sequence[TensorInfo], attrs: Mapping[str, Any], half_last: bool) -> tuple[int, ...]:
    x = infos[0]
    axes, s = fft_axes(attrs["axes"], len(x.shape)), attrs["s"]
    if len(s) != len(axes):
        raise ShapeError(f"s {s} needs one length per axis of axes {axes}.")
    if not axes:
        raise ShapeError("the transform needs at least one axis.")
    shape = list(x.shape)
    for a, n in zip(axes, s):
        shape[a] = n
    if half_last:
        shape[axes[-1]] = s[-1] // 2 + 1
    return tuple(shape)


def _complex_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(_shape(infos, attrs, False), infos[0].dtype)]


def _rfft_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(_shape(infos, attrs, True), complex_of(infos[0].dtype))]


def _irfft_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(_shape(infos, attrs, False), real_of(infos[0].dtype))]


_ATTRS = (
    AttrSpec("axes", (-1,), lambda v: tuple(as_int(a) for a in v), "the axes to transform, in order"),
    AttrSpec("s", (1,), as_lengths, "the transform's length along each axis (pad with zeros or trim to it)"),
    AttrSpec("norm", "backward", as_norm, "'backward', 'ortho' or 'forward' (which way 1/n scales)"),
)
_COMPLEX = {"x": FFT_COMPLEX}

FFT = declare_spec(KernelSpec(
    name="Fft", inputs=("x",), infer=_complex_rule, attrs=_ATTRS, input_dtypes=_COMPLEX,
    doc="the discrete Fourier transform over axes, of lengths s (numpy.fft.fftn)",
))
IFFT = declare_spec(KernelSpec(
    name="Ifft", inputs=("x",), infer=_complex_rule, attrs=_ATTRS, input_dtypes=_COMPLEX,
    doc="the inverse discrete Fourier transform over axes, of lengths s (numpy.fft.ifftn)",
))
RFFT = declare_spec(KernelSpec(
    name="Rfft", inputs=("x",), infer=_rfft_rule, attrs=_ATTRS, input_dtypes={"x": FFT_FLOATS},
    doc="the discrete Fourier transform of real input over axes, the last one halved to s[-1] // 2 + 1 "
        "entries (numpy.fft.rfftn)",
))
IRFFT = declare_spec(KernelSpec(
    name="Irfft", inputs=("x",), infer=_irfft_rule, attrs=_ATTRS, input_dtypes=_COMPLEX,
    doc="the inverse of Rfft: real output of lengths s over axes (numpy.fft.irfftn)",
))
