"""ONNX lowering of Transform (TF's ImageProjectiveTransformV3), as
``kernel_helpers.image_sampling.transform`` computes it: each output pixel's input point from its
batch row's transform, moved by the fill mode (reflect, wrap, nearest: ``map_coord``'s formulas,
``trunc`` as sign * floor(|v|)), read at its corner pixels (one ``Gather`` each on the flattened
image; a corner outside the image reads the fill value), weighted for bilinear, and the fill
value where the projective divisor is zero."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_transform"]


class _Points:
    """ONNX arithmetic in one float dtype: constants of it and the few compositions needed."""

    def __init__(self, ctx: LoweringContext, dtype: np.dtype) -> None:
        self.ctx, self.dtype = ctx, dtype

    def c(self, value: object) -> str:
        return self.ctx.constant(value, self.dtype)

    def op(self, op_type: str, *inputs: str) -> str:
        return self.ctx.node(op_type, list(inputs))

    def where(self, cond: str, a: str, b: str) -> str:
        return self.op("Where", cond, a, b)

    def trunc(self, v: str) -> str:
        return self.op("Mul", self.op("Sign", v), self.op("Floor", self.op("Abs", v)))

    def clip(self, v: str, length: int) -> str:
        return self.ctx.node("Clip", [v, self.c(0), self.c(length - 1)])

    def map_coord(self, coord: str, length: int, mode: str) -> str:
        """``image_sampling.map_coord``: where a coordinate outside [0, length - 1] reads."""
        if mode == "constant":
            return coord
        if mode == "nearest" or length <= 1:
            return self.clip(coord, length)
        o = self.op
        if mode == "reflect":
            size2 = self.c(2 * length)
            neg = o("Add", o("Mul", size2, self.trunc(o("Div", o("Neg", coord), size2))), coord)
            neg = self.where(o("Less", coord, size2), neg, coord)
            neg = self.where(o("Less", neg, self.c(-length)), o("Add", neg, size2),
                             o("Sub", o("Neg", neg), self.c(1)))
            pos = o("Sub", coord, o("Mul", size2, self.trunc(o("Div", coord, size2))))
            beyond = o("Sub", o("Sub", size2, pos), self.c(1))
            pos = self.where(o("GreaterOrEqual", pos, self.c(length)), beyond, pos)
        else:  # wrap
            size, n = self.c(length - 1), self.c(length)
            turns = o("Add", self.trunc(o("Div", o("Neg", coord), size)), self.c(1))
            neg = o("Add", coord, o("Mul", n, turns))
            pos = o("Sub", coord, o("Mul", n, self.trunc(o("Div", coord, size))))
        mapped = self.where(o("Less", coord, self.c(0)), neg,
                            self.where(o("Greater", coord, self.c(length - 1)), pos, coord))
        return self.clip(mapped, length)


@lowering("Transform")
def lower_transform(ctx: LoweringContext) -> None:
    n, height, width, channels = ctx.input_infos[0].shape
    out_dtype = ctx.np_dtype(0)
    out_h, out_w = ctx.output_infos[0].shape[1:3]
    fill_value = float(ctx.attrs["fill_value"])
    if not n * channels * out_h * out_w * height * width:
        shape = ctx.ints([n, out_h, out_w, channels])
        ctx.node("Expand", [ctx.constant(fill_value, out_dtype), shape], ctx.out)
        return
    wide = np.dtype(np.float32) if out_dtype.itemsize < 4 else out_dtype  # (the kernels' image dtype)
    t_dtype = ctx.np_dtype(1)
    t_dtype = np.dtype(np.float64) if t_dtype.itemsize < 4 else t_dtype
    p = _Points(ctx, t_dtype)
    t = ctx.node("Cast", [ctx.node("Expand", [ctx.inputs[1], ctx.ints([n, 8])])], to=elem_type(t_dtype))

    def col(i: int) -> str:  # t[:, i] as (n, 1, 1)
        column = ctx.node("Slice", [t, ctx.ints([i]), ctx.ints([i + 1]), ctx.ints([1])])
        return ctx.node("Reshape", [column, ctx.ints([n, 1, 1])])

    ys, xs = p.c(np.arange(out_h).reshape(1, out_h, 1)), p.c(np.arange(out_w).reshape(1, 1, out_w))

    def affine(a: int) -> str:  # t[a] x + t[a + 1] y + t[a + 2]
        return p.op("Add", p.op("Add", p.op("Mul", col(a), xs), p.op("Mul", col(a + 1), ys)), col(a + 2))

    k = p.op("Add", p.op("Add", p.op("Mul", col(6), xs), p.op("Mul", col(7), ys)), p.c(1))
    zero_k = p.op("Equal", k, p.c(0))
    safe = p.where(zero_k, p.c(1), k)
    mode = ctx.attrs["fill_mode"]
    in_x = p.map_coord(p.op("Div", affine(0), safe), width, mode)
    in_y = p.map_coord(p.op("Div", affine(3), safe), height, mode)
    image = ctx.node("Reshape", [ctx.inputs[0], ctx.ints([n * height * width, channels])])
    if wide != out_dtype:
        image = ctx.node("Cast", [image], to=elem_type(wide))
    fill = ctx.constant(fill_value, wide)
    base = ctx.constant((np.arange(n) * height * width).reshape(n, 1, 1), np.int64)

    def read(row: str, column: str) -> str:
        """image[b, row, column] at integer-valued points, the fill value outside the image."""
        inside = ctx.node("And", [ctx.node("And", [p.op("GreaterOrEqual", row, p.c(0)),
                                                   p.op("LessOrEqual", row, p.c(height - 1))]),
                                  ctx.node("And", [p.op("GreaterOrEqual", column, p.c(0)),
                                                   p.op("LessOrEqual", column, p.c(width - 1))])])
        r, c = (ctx.node("Cast", [p.where(inside, v, p.c(0))], to=7) for v in (row, column))
        at = ctx.node("Add", [base, ctx.node("Add", [ctx.node("Mul", [r, ctx.ints(width)]), c])])
        value = ctx.node("Gather", [image, at], axis=0)
        return ctx.node("Where", [ctx.node("Unsqueeze", [inside, ctx.ints([3])]), value, fill])

    if ctx.attrs["interpolation"] == "bilinear":
        y0, x0 = p.op("Floor", in_y), p.op("Floor", in_x)
        wy, wx = p.op("Sub", in_y, y0), p.op("Sub", in_x, x0)
        y1, x1 = p.op("Add", y0, p.c(1)), p.op("Add", x0, p.c(1))
        uy, ux = p.op("Sub", p.c(1), wy), p.op("Sub", p.c(1), wx)
        values = None
        for row, column, w in ((y0, x0, p.op("Mul", uy, ux)), (y0, x1, p.op("Mul", uy, wx)),
                               (y1, x0, p.op("Mul", wy, ux)), (y1, x1, p.op("Mul", wy, wx))):
            weight = ctx.node("Cast", [ctx.node("Unsqueeze", [w, ctx.ints([3])])], to=elem_type(wide))
            part = ctx.node("Mul", [read(row, column), weight])
            values = part if values is None else ctx.node("Add", [values, part])
        assert values is not None
    else:
        half = p.c(0.5)
        values = read(p.op("Floor", p.op("Add", in_y, half)), p.op("Floor", p.op("Add", in_x, half)))
    result = ctx.node("Where", [ctx.node("Unsqueeze", [zero_k, ctx.ints([3])]), fill, values])
    ctx.node("Cast", [result], ctx.out, to=elem_type(out_dtype))
