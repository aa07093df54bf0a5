"""ONNX lowerings of the creation kernels: Fill (``Expand`` of the value), Range (ONNX ``Range``
counting 0, 1, ..., then scaled and shifted in int64 or float64 and cast once, as the kernels
compute it), Eye (``EyeLike``, cast), the random kernels as a constant holding the numpy
backend's own draw (ONNX's generators are not tensorplug's: a draw in the graph would give other
values), and Threefry2x32 (the hash of keys, written out in uint32 nodes). A trace folds the
kernels without tensor inputs into constants (they read no input); a graph that keeps one as a
node exports through these."""

from __future__ import annotations

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type
from tensorplug.kernel_helpers import range_dtype, range_length
from tensorplug.kernel_helpers.random_constants import THREEFRY_PARITY, THREEFRY_ROTATIONS
from tensorplug.kernels.run import run_kernel

__all__ = ["lower_fill", "lower_range", "lower_eye", "numpy_output", "lower_threefry2x32"]


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



@lowering("Threefry2x32")
def lower_threefry2x32(ctx: LoweringContext) -> None:
    """The 20 rounds as ONNX nodes on uint32 (Add wraps; BitShift; BitwiseOr, BitwiseXor), as
    the generic kernel (``threefry.py``) writes them: ~115 nodes."""
    k1, k2, x1, x2 = ctx.inputs

    def word(value: int) -> str:
        return ctx.constant(value, np.uint32)

    def add(a: str, b: str) -> str:
        return ctx.node("Add", [a, b])

    schedule = (k1, k2, ctx.node("BitwiseXor", [ctx.node("BitwiseXor", [k1, k2]), word(THREEFRY_PARITY)]))
    a, b = add(k1, x1), add(k2, x2)
    for group in range(5):
        for r in THREEFRY_ROTATIONS[group % 2]:
            a = add(a, b)
            rotated = ctx.node("BitwiseOr", [ctx.node("BitShift", [b, word(r)], direction="LEFT"),
                                             ctx.node("BitShift", [b, word(32 - r)], direction="RIGHT")])
            b = ctx.node("BitwiseXor", [rotated, a])
        a = add(a, schedule[(group + 1) % 3])
        b = add(b, add(schedule[(group + 2) % 3], word(group + 1)))
    ctx.node("Identity", [a], ctx.outputs[0])
    ctx.node("Identity", [b], ctx.outputs[1])
