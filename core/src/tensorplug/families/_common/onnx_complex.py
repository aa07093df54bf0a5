"""Complex values in an ONNX graph, which has no complex dtype: a complex tensor of shape S is
held as a real one of shape S + (2,), its (real, imaginary) pairs on the trailing axis. What the
lowerings that compute on them share: declaring such a lowering, and the parts and pairs."""

from __future__ import annotations

from collections.abc import Callable

from tensorplug.exporting.context import LoweringContext
from tensorplug.registry.core_entries import declare_onnx_lowering
from tensorplug.registry.onnx_lowerings import OnnxLowering

__all__ = ["pair_lowering", "is_complex", "real_part", "imag_part", "make_pair", "conjugate"]


Lower = Callable[[LoweringContext], None]


def pair_lowering(kernel: str) -> Callable[[Lower], Lower]:
    """Decorator: declare the function as the core's ONNX lowering of `kernel`, one that handles
    complex values as (real, imaginary) pairs."""
    def declare(fn: Lower) -> Lower:
        declare_onnx_lowering(OnnxLowering(kernel, fn, complex_pairs=True))
        return fn
    return declare


def is_complex(ctx: LoweringContext, i: int = 0, output: bool = False) -> bool:
    """Whether input (or output) `i` of the call is complex (held as pairs)."""
    return (ctx.output_infos if output else ctx.input_infos)[i].dtype.is_complex


def real_part(ctx: LoweringContext, x: str, out: str | None = None) -> str:
    """The real parts of pairs `x` (the trailing axis dropped)."""
    return ctx.node("Gather", [x, ctx.ints(0)], out, axis=-1)


def imag_part(ctx: LoweringContext, x: str, out: str | None = None) -> str:
    """The imaginary parts of pairs `x` (the trailing axis dropped)."""
    return ctx.node("Gather", [x, ctx.ints(1)], out, axis=-1)


def make_pair(ctx: LoweringContext, re: str, im: str, out: str | None = None) -> str:
    """Pairs of real parts `re` and imaginary parts `im` (of one shape)."""
    last = ctx.ints([-1])
    return ctx.node("Concat", [ctx.node("Unsqueeze", [re, last]), ctx.node("Unsqueeze", [im, last])], out,
                    axis=-1)


def conjugate(ctx: LoweringContext, x: str, real_dtype: object, out: str | None = None) -> str:
    """The conjugates of pairs `x`: the imaginary parts negated."""
    return ctx.node("Mul", [x, ctx.constant([1, -1], real_dtype)], out)
