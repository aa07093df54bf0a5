"""ONNX lowerings of the image family's samplers: RotateWithOffset (the rotated read positions
are constants of the image's shape: one ``Gather``, the fill where they leave the image) and
CropAndResize (TF's crop points computed from the boxes, read with ``GatherND``, bilinear or
nearest, the extrapolation value outside), as ``kernel_helpers.image_sampling`` computes them."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.kernel_helpers.image_sampling import channel_fill, rotate_points

__all__ = ["lower_rotate_with_offset", "lower_crop_and_resize"]


@lowering("RotateWithOffset")
def lower_rotate_with_offset(ctx: LoweringContext) -> None:
    shape = ctx.input_infos[0].shape
    n, height, width, channels = shape
    if not int(np.prod(shape)):
        ctx.node("Identity", ctx.inputs, ctx.out)
        return
    rows, cols = rotate_points(shape, float(ctx.attrs["radians"]), ctx.attrs.get("center", 0.5))
    inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    at = (np.where(inside, rows, 0) * width + np.where(inside, cols, 0)).astype(np.int64)
    flat = ctx.node("Reshape", [ctx.inputs[0], ctx.ints([n, height * width, channels])])
    read = ctx.node("Gather", [flat, ctx.constant(at)], axis=1)
    fill = ctx.constant(channel_fill(ctx.attrs.get("fill_value", 0.0), channels).astype(ctx.np_dtype(0)))
    ctx.node("Where", [ctx.constant(inside[None, :, :, None]), read, fill], ctx.out)


@lowering("CropAndResize")
def lower_crop_and_resize(ctx: LoweringContext) -> None:
    image, boxes, box_ind = ctx.inputs
    n, height, width, channels = ctx.input_infos[0].shape
    crop_h, crop_w = (int(s) for s in ctx.attrs["crop_size"])
    count = ctx.input_infos[1].shape[0]
    if not (count and n and channels):
        raise ctx.unsupported("no boxes, images or channels (an empty crop: export the constant instead)")
    dtype = ctx.np_dtype(0)
    boxes = ctx.node("Cast", [boxes], to=1 if dtype == np.float32 else 11)

    def c(value: object) -> str:
        return ctx.constant(value, dtype)

    def column(k: int) -> str:  # boxes[:, k] as (count, 1)
        return ctx.node("Slice", [boxes, ctx.ints([k]), ctx.ints([k + 1]), ctx.ints([1])])

    def axis(lo: str, hi: str, length: int, steps: int) -> str:
        if steps > 1:
            ramp = c(np.arange(steps) * (length - 1) / (steps - 1))
            return ctx.node("Add", [ctx.node("Mul", [lo, c(length - 1)]),
                                    ctx.node("Mul", [ctx.node("Sub", [hi, lo]), ramp])])
        return ctx.node("Mul", [ctx.node("Add", [lo, hi]), c(0.5 * (length - 1))])

    y = ctx.node("Unsqueeze", [axis(column(0), column(2), height, crop_h), ctx.ints([2])])  # (count, ch, 1)
    x = ctx.node("Unsqueeze", [axis(column(1), column(3), width, crop_w), ctx.ints([1])])  # (count, 1, cw)
    ind = ctx.node("Cast", [box_ind], to=7)
    low, high = ctx.node("GreaterOrEqual", [ind, ctx.ints(0)]), ctx.node("Less", [ind, ctx.ints(n)])
    good_box = ctx.node("Reshape", [ctx.node("And", [low, high]), ctx.ints([count, 1, 1])])

    def within(v: str, length: int) -> str:
        low, high = ctx.node("GreaterOrEqual", [v, c(0)]), ctx.node("LessOrEqual", [v, c(length - 1)])
        return ctx.node("And", [low, high])

    good_y, good_x = within(y, height), within(x, width)
    b = ctx.node("Where", [good_box, ctx.node("Reshape", [ind, ctx.ints([count, 1, 1])]), ctx.ints(0)])
    y, x = ctx.node("Where", [good_y, y, c(0)]), ctx.node("Where", [good_x, x, c(0)])
    inside = ctx.node("And", [ctx.node("And", [good_y, good_x]), good_box])
    full = ctx.ints([count, crop_h, crop_w, 1])

    def read(row: str, col: str) -> str:  # image at (b, row, col): (count, ch, cw, channels)
        as_int = [ctx.node("Cast", [v], to=7) for v in (b, row, col)]
        parts = [ctx.node("Expand", [ctx.node("Unsqueeze", [v, ctx.ints([-1])]), full]) for v in as_int]
        return ctx.node("GatherND", [image, ctx.node("Concat", parts, axis=-1)])

    if ctx.attrs.get("method", "bilinear") == "bilinear":
        y0, x0 = ctx.node("Floor", [y]), ctx.node("Floor", [x])
        y1, x1 = ctx.node("Ceil", [y]), ctx.node("Ceil", [x])
        wy = ctx.node("Unsqueeze", [ctx.node("Sub", [y, y0]), ctx.ints([-1])])
        wx = ctx.node("Unsqueeze", [ctx.node("Sub", [x, x0]), ctx.ints([-1])])

        def blend(a: str, b_: str, w: str) -> str:
            kept = ctx.node("Mul", [a, ctx.node("Sub", [c(1), w])])
            return ctx.node("Add", [kept, ctx.node("Mul", [b_, w])])

        top, bottom = blend(read(y0, x0), read(y0, x1), wx), blend(read(y1, x0), read(y1, x1), wx)
        values = blend(top, bottom, wy)
    else:
        values = read(ctx.node("Floor", [ctx.node("Add", [y, c(0.5)])]),
                      ctx.node("Floor", [ctx.node("Add", [x, c(0.5)])]))
    fill = ctx.node("Where", [ctx.node("Unsqueeze", [good_box, ctx.ints([-1])]),
                              c(float(ctx.attrs.get("extrapolation_value", 0.0))), c(0)])
    ctx.node("Where", [ctx.node("Unsqueeze", [inside, ctx.ints([-1])]), values, fill], ctx.out)
