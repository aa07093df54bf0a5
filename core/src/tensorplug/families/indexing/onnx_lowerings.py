"""ONNX lowerings of the indexing family: Gather, OneHot (an index outside [0, depth) gives an
all-off row, as the kernel does, not ONNX's wrap-around of negative ones) and StridedSlice
(``Slice``; an axis read whole is left out, so a dynamic batch axis stays dynamic)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_gather", "lower_one_hot", "lower_strided_slice"]


@lowering("Gather")
def lower_gather(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    ctx.node("Gather", ctx.inputs, ctx.out, axis=int(ctx.attrs.get("axis", 0)) % rank)


@lowering("OneHot")
def lower_one_hot(ctx: LoweringContext) -> None:
    depth = int(ctx.attrs["depth"])
    dtype = ctx.np_dtype(0, output=True)
    indices = ctx.inputs[0]
    if ctx.input_infos[0].dtype.kind != "int" or ctx.np_dtype(0) != np.int64:
        indices = ctx.node("Cast", [indices], to=elem_type(np.dtype(np.int64)))
    negative = ctx.node("Less", [indices, ctx.ints(0)])
    indices = ctx.node("Where", [negative, ctx.ints(depth), indices])  # (past the end: all off)
    values = ctx.constant([ctx.attrs.get("off_value", 0.0), ctx.attrs.get("on_value", 1.0)], dtype)
    if depth == 0:  # (no columns: an empty result; onnxruntime refuses a depth of 0)
        ctx.node("Identity", [ctx.constant(np.zeros(ctx.output_infos[0].shape, dtype))], ctx.out)
        return
    if ctx.input_infos[0].shape:
        ctx.node("OneHot", [indices, ctx.ints(depth), values], ctx.out, axis=-1)
        return
    one = ctx.node("Reshape", [indices, ctx.ints([1])])
    row = ctx.node("OneHot", [one, ctx.ints(depth), values], axis=-1)
    ctx.node("Reshape", [row, ctx.ints([depth])], ctx.out)  # (ONNX's OneHot takes no 0-d indices)


@lowering("StridedSlice")
def lower_strided_slice(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    starts, ends, axes, steps = [], [], [], []
    for axis, ((start, stop, step), size) in enumerate(zip(ctx.attrs["slices"], shape)):
        if (start, stop, step) == (0, size, 1):
            continue
        starts.append(start)
        ends.append(stop if stop >= 0 else np.iinfo(np.int64).min)  # (-1 going back: through index 0)
        axes.append(axis)
        steps.append(step)
    if not axes:
        ctx.node("Identity", ctx.inputs, ctx.out)
        return
    bounds = [ctx.ints(starts), ctx.ints(ends), ctx.ints(axes), ctx.ints(steps)]
    ctx.node("Slice", [ctx.inputs[0], *bounds], ctx.out)


@lowering("StridedSliceGrad")
def lower_strided_slice_grad(ctx: LoweringContext) -> None:
    """dy written into zeros of the input's shape where the slices read (constant positions)."""
    shape = tuple(int(n) for n in ctx.attrs["shape"])
    if not shape:
        ctx.node("Identity", ctx.inputs, ctx.out)
        return
    ranges = [np.arange(*s) for s in ctx.attrs["slices"]]
    positions = np.stack(np.meshgrid(*ranges, indexing="ij"), axis=-1).astype(np.int64)
    zeros = ctx.constant(np.zeros(shape, ctx.np_dtype(0)))
    ctx.node("ScatterND", [zeros, ctx.constant(positions), ctx.inputs[0]], ctx.out)


@lowering("ScatterAdd")
def lower_scatter_add(ctx: LoweringContext) -> None:
    """zeros(shape) with the updates added along `axis`: the axis moved first, ``ScatterND``
    adding into it, moved back."""
    shape = tuple(int(n) for n in ctx.attrs["shape"])
    rank = len(shape)
    axis = int(ctx.attrs.get("axis", 0)) % rank
    k = len(ctx.input_infos[0].shape)  # (the indices' dimensions, in the updates at `axis`)
    indices = ctx.inputs[0]
    if ctx.np_dtype(0) != np.int64:
        indices = ctx.node("Cast", [indices], to=elem_type(np.dtype(np.int64)))
    moved = [axis, *range(axis), *range(axis + 1, rank)]
    zeros = ctx.constant(np.zeros([shape[i] for i in moved], ctx.np_dtype(1)))
    perm = [*range(axis, axis + k), *range(axis), *range(axis + k, rank - 1 + k)]
    updates = ctx.inputs[1]
    if perm != list(range(len(perm))):
        updates = ctx.node("Transpose", [updates], perm=perm)
    added = ctx.node("ScatterND", [zeros, ctx.node("Unsqueeze", [indices, ctx.ints([-1])]), updates],
                     reduction="add")
    back = [moved.index(i) for i in range(rank)]
    ctx.node("Transpose", [added], ctx.out, perm=back)
