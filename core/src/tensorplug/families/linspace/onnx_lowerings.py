"""ONNX lowering of LinSpace, as the kernels compute it: ``i * step + start`` for i < num in
float64 (ONNX ``Range`` counting, cast), start written at the first place and stop at the last
(with endpoint), then cast once to the output dtype. (Complex ends: no ONNX dtype holds them.)"""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_linspace"]


@lowering("LinSpace")
def lower_linspace(ctx: LoweringContext) -> None:
    start, stop = ctx.attrs["start"], ctx.attrs["stop"]
    num, endpoint = ctx.attrs["num"], ctx.attrs["endpoint"]
    if isinstance(start, complex) or isinstance(stop, complex):
        raise ctx.unsupported("complex ends make a complex tensor, which ONNX's operators do not hold")
    f64 = np.dtype(np.float64)
    with np.errstate(all="ignore"):  # (numpy's own step: inf or NaN for infinite ends, as the kernel's)
        step = (np.float64(stop) - np.float64(start)) / max(num - 1 if endpoint else num, 1)
    counts = ctx.node("Range", [ctx.ints(0), ctx.ints(num), ctx.ints(1)])
    counts = ctx.node("Cast", [counts], to=elem_type(f64))
    values = ctx.node("Add", [ctx.node("Mul", [counts, ctx.constant(step, f64)]), ctx.constant(start, f64)])
    if num >= 1:  # (the ends written exactly: start first, stop last with endpoint)
        parts = [ctx.constant([start], f64)]
        inner_end = num - 1 if endpoint and num > 1 else num
        if inner_end > 1:
            parts.append(ctx.node("Slice", [values, ctx.ints([1]), ctx.ints([inner_end])]))
        if endpoint and num > 1:
            parts.append(ctx.constant([stop], f64))
        values = ctx.node("Concat", parts, axis=0)
    ctx.node("Cast", [values], ctx.out, to=elem_type(ctx.np_dtype(0, output=True)))
