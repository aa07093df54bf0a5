"""What the families' ONNX lowerings share: declaring table entries, channels-last layout moves
around ONNX's channels-first operators, fused activations, and attribute normalization."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.exporting.context import LoweringContext
from tensorplug.registry.core_entries import declare_onnx_lowering
from tensorplug.registry.onnx_lowerings import OnnxLowering

__all__ = ["lowering", "same_op", "to_channels_first", "to_channels_last", "activation", "per_dim",
           "onnx_pads", "axes_or_all"]


def lowering(kernel: str) -> Callable[[Callable[[LoweringContext], None]], Callable[[LoweringContext], None]]:
    """Decorator: declare the function as the core's ONNX lowering of `kernel`."""
    def declare(fn: Callable[[LoweringContext], None]) -> Callable[[LoweringContext], None]:
        declare_onnx_lowering(OnnxLowering(kernel, fn))
        return fn
    return declare


def same_op(kernel: str, op_type: str, **attributes: Any) -> None:
    """Declare `kernel` as ONNX operator `op_type` on the same inputs and outputs."""
    def lower(ctx: LoweringContext) -> None:
        ctx.node(op_type, ctx.inputs, ctx.outputs, **attributes)
    declare_onnx_lowering(OnnxLowering(kernel, lower))


def to_channels_first(ctx: LoweringContext, x: str, rank: int) -> str:
    """NHWC (channels last) -> NCHW: ``Transpose``."""
    return ctx.node("Transpose", [x], perm=[0, rank - 1, *range(1, rank - 1)])


def to_channels_last(ctx: LoweringContext, x: str, rank: int, out: str | None = None) -> str:
    """NCHW -> NHWC: ``Transpose`` (into `out` when given)."""
    return ctx.node("Transpose", [x], out, perm=[0, *range(2, rank), 1])


def per_dim(value: Any, n: int) -> list[int]:
    """An int or a sequence of `n` ints, as a list of `n` ints."""
    if isinstance(value, int):
        return [value] * n
    return [int(v) for v in value]


def onnx_pads(pairs: Sequence[Sequence[int]]) -> list[int]:
    """((low, high) per spatial dim) -> ONNX's ``pads``: all lows, then all highs."""
    return [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]


def activation(ctx: LoweringContext, x: str, out: str, prelu: str | None = None) -> None:
    """A fused kernel's activation (``attrs['activation']``) of `x` into `out`."""
    kind = ctx.attrs.get("activation", "linear")
    if kind == "linear":
        ctx.node("Identity", [x], out)
    elif kind == "relu":
        ctx.node("Relu", [x], out)
    elif kind == "relu6":
        dtype = ctx.np_dtype(0)
        ctx.node("Clip", [x, ctx.constant(0, dtype), ctx.constant(6, dtype)], out)
    elif kind == "elu":
        ctx.node("Elu", [x], out, alpha=1.0)
    elif kind == "leakyrelu":
        ctx.node("LeakyRelu", [x], out, alpha=float(ctx.attrs.get("leakyrelu_alpha", 0.2)))
    elif kind == "sigmoid":
        ctx.node("Sigmoid", [x], out)
    elif kind == "prelu" and prelu is not None:
        ctx.node("PRelu", [x, prelu], out)
    else:
        raise ctx.unsupported(f"the fused activation '{kind}' has no ONNX form here")


def axes_or_all(ctx: LoweringContext, rank: int) -> list[int] | None:
    """The reduction axes of ``attrs['axis']`` (None: all), normalized to non-negative ints."""
    axis = ctx.attrs.get("axis")
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    return [a % rank if rank else 0 for a in axes]
