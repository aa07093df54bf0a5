"""ONNX lowerings of the sorting family: Sort and ArgSort as ``TopK`` of the whole axis (ONNX
keeps equal elements in index order: a stable sort). A descending float sort is an ascending
one of the negated values, so that NaNs stay last as the kernel puts them; bools sort as int32."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_sort"]


@lowering("Sort")
@lowering("ArgSort")
def lower_sort(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    x = ctx.inputs[0]
    if not shape:  # (one element: itself, at index 0)
        ctx.node("Identity", [x if ctx.kernel == "Sort" else ctx.ints(0)], ctx.out)
        return
    axis = int(ctx.attrs.get("axis", -1)) % len(shape)
    descending = bool(ctx.attrs.get("descending", False))
    kind = ctx.input_infos[0].dtype.kind
    key = ctx.node("Cast", [x], to=elem_type(np.dtype(np.int32))) if kind == "bool" else x
    largest = 0
    if descending and kind == "float":
        key = ctx.node("Neg", [key])
    elif descending:
        largest = 1
    order = ctx.out if ctx.kernel == "ArgSort" else ctx.fresh("indices")
    ctx.node("TopK", [key, ctx.ints([shape[axis]])], [ctx.fresh("keys"), order], axis=axis,
             largest=largest, sorted=1)
    if ctx.kernel == "Sort":
        ctx.node("GatherElements", [x, order], ctx.out, axis=axis)
