"""ONNX lowerings of the Fourier transforms through ONNX's ``DFT`` (opset 20 and later), on the
(real, imaginary) pairs that hold complex values in the graph: each axis of ``axes`` trimmed or
zero-padded to its length of ``s`` and transformed in turn (Rfft's last axis one-sided, Irfft's
last axis from its Hermitian extension, the real parts kept), then scaled by ``norm`` (ONNX's
forward transform is unscaled, its inverse scaled by 1/n, numpy's 'backward')."""

from __future__ import annotations

import math

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_complex import conjugate, pair_lowering, real_part

__all__ = ["lower_fft", "lower_rfft", "lower_irfft"]


def _fit(ctx: LoweringContext, x: str, shape: list[int], axis: int, length: int) -> str:
    """`x` (of `shape`, updated) trimmed or zero-padded to `length` along `axis`."""
    have = shape[axis]
    if have > length:
        x = ctx.node("Slice", [x, ctx.ints([0]), ctx.ints([length]), ctx.ints([axis])])
    elif have < length:
        pads = [0] * (2 * len(shape))
        pads[len(shape) + axis] = length - have
        x = ctx.node("Pad", [x, ctx.ints(pads)])
    shape[axis] = length
    return x


def _dft(ctx: LoweringContext, x: str, axis: int, inverse: bool, onesided: bool = False) -> str:
    return ctx.node("DFT", [x, "", ctx.ints(axis)], inverse=int(inverse), onesided=int(onesided))


def _scaled(ctx: LoweringContext, x: str, inverse: bool, out: str) -> None:
    """`x` scaled as ``norm`` asks (ONNX's inverse carries 1/n already), into `out`."""
    n = math.prod(ctx.attrs["s"])
    if inverse:
        scale = {"backward": 1.0, "ortho": math.sqrt(n), "forward": float(n)}[ctx.attrs["norm"]]
    else:
        scale = {"backward": 1.0, "ortho": 1 / math.sqrt(n), "forward": 1 / n}[ctx.attrs["norm"]]
    if scale == 1.0:
        ctx.node("Identity", [x], out)
    else:
        ctx.node("Mul", [x, ctx.constant(scale, _real(ctx.np_dtype(0, output=True)))], out)


def _real(dtype: np.dtype) -> np.dtype:
    """The real dtype of `dtype`'s precision (a complex value's pairs)."""
    return np.empty(0, dtype).real.dtype


def _axes(ctx: LoweringContext) -> list[int]:
    rank = len(ctx.input_infos[0].shape)
    return [a % rank for a in ctx.attrs["axes"]]


@pair_lowering("Fft")
@pair_lowering("Ifft")
def lower_fft(ctx: LoweringContext) -> None:
    inverse = ctx.kernel == "Ifft"
    x, shape = ctx.inputs[0], [*ctx.input_infos[0].shape, 2]
    for axis, length in zip(_axes(ctx), ctx.attrs["s"]):
        x = _dft(ctx, _fit(ctx, x, shape, axis, length), axis, inverse)
    _scaled(ctx, x, inverse, ctx.out)


@pair_lowering("Rfft")
def lower_rfft(ctx: LoweringContext) -> None:
    axes, lengths = _axes(ctx), ctx.attrs["s"]
    x, shape = ctx.inputs[0], list(ctx.input_infos[0].shape)
    for axis, length in zip(axes, lengths):
        x = _fit(ctx, x, shape, axis, length)
    x = _dft(ctx, ctx.node("Unsqueeze", [x, ctx.ints([-1])]), axes[-1], False, onesided=True)
    for axis in axes[:-1]:
        x = _dft(ctx, x, axis, False)
    _scaled(ctx, x, False, ctx.out)


@pair_lowering("Irfft")
def lower_irfft(ctx: LoweringContext) -> None:
    """The complex inverse over all axes but the last; there, the spectrum's Hermitian extension
    (entries h .. n - 1 the conjugates of n - h .. 1), inverted, its real parts."""
    axes, lengths = _axes(ctx), ctx.attrs["s"]
    x, shape = ctx.inputs[0], [*ctx.input_infos[0].shape, 2]
    for axis, length in zip(axes[:-1], lengths[:-1]):
        x = _dft(ctx, _fit(ctx, x, shape, axis, length), axis, True)
    last, n = axes[-1], lengths[-1]
    half = n // 2 + 1
    x = _fit(ctx, x, shape, last, half)
    if n > half:
        mirror = ctx.node("Gather", [x, ctx.ints([n - k for k in range(half, n)])], axis=last)
        x = ctx.node("Concat", [x, conjugate(ctx, mirror, ctx.np_dtype(0, output=True))], axis=last)
    _scaled(ctx, real_part(ctx, _dft(ctx, x, last, True)), True, ctx.out)
