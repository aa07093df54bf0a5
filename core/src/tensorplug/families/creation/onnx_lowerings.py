"""ONNX lowerings of the creation kernels (no tensor inputs): Fill (``Expand`` of the value),
Range (ONNX ``Range`` counting 0, 1, ..., then scaled and shifted in int64 or float64 and cast
once, as the kernels compute it), Eye (``EyeLike``, cast), and the random kernels as a constant holding
the numpy backend's own draw (ONNX's generators are not tensorplug's: a draw in the graph would
give other values). A trace folds these kernels into constants (they read no input); a graph
that keeps one as a node exports through these."""

from __future__ import annotations

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type
from tensorplug.kernel_helpers import range_dtype, range_length
from tensorplug.kernels.run import run_kernel

__all__ = ["lower_fill", "lower_range", "lower_eye", "numpy_output"]


@lowering("Fill")
def lower_fill(ctx: LoweringContext) -> None:
    value = ctx.constant(ctx.attrs["value"], ctx.np_dtype(0, output=True))
    ctx.node("Expand", [value, ctx.ints(list(ctx.output_infos[0].shape))], ctx.out)


@lowering("Range")
def lower_range(ctx: LoweringContext) -> None:
    start, stop, step = ctx.attrs["start"], ctx.attrs["stop"], ctx.attrs["step"]
    wide = range_dtype(start, stop, step)
    counts = ctx.node("Range", [ctx.ints(0), ctx.ints(range_length(start, stop, step)), ctx.ints(1)])
    values = counts if wide == np.int64 else ctx.node("Cast", [counts], to=elem_type(np.dtype(wide)))
    values = ctx.node("Mul", [values, ctx.constant(step, wide)])
    values = ctx.node("Add", [values, ctx.constant(start, wide)])
    ctx.node("Cast", [values], ctx.out, to=elem_type(ctx.np_dtype(0, output=True)))


@lowering("Eye")
def lower_eye(ctx: LoweringContext) -> None:
    """``EyeLike`` in float32 (the dtype every runtime computes it in), cast to the output's."""
    dtype = ctx.np_dtype(0, output=True)
    zeros = ctx.node("Expand", [ctx.constant(0, np.float32), ctx.ints(list(ctx.output_infos[0].shape))])
    if dtype == np.float32:
        ctx.node("EyeLike", [zeros], ctx.out, k=int(ctx.attrs["k"]))
    else:
        ctx.node("Cast", [ctx.node("EyeLike", [zeros], k=int(ctx.attrs["k"]))], ctx.out, to=elem_type(dtype))


def numpy_output(ctx: LoweringContext) -> None:
    """The call's output as a constant: the kernel run on the numpy backend at export time."""
    with backend_scope("numpy"):
        value = run_kernel(ctx.kernel, {}, ctx.attrs).numpy()
    ctx.node("Identity", [ctx.constant(value)], ctx.out)


lowering("RandomUniform")(numpy_output)
lowering("RandomNormal")(numpy_output)

