"""ONNX lowerings of the image family's samplers: RotateWithOffset (the rotated read positions
are constants of the image's shape: one ``Gather``, the fill where they leave the image) and
CropAndResize (TF's crop points computed from the boxes, read with ``GatherND``, bilinear or
nearest, the extrapolation value outside) and its gradient in the image (``ScatterND`` adding at
the same reads), as ``kernel_helpers.image_sampling`` computes them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.kernel_helpers.image_sampling import channel_fill, rotate_points

__all__ = ["lower_rotate_with_offset", "lower_crop_and_resize", "lower_crop_and_resize_grad_image"]


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


class _Crop:
    """TF's crop points of one CropAndResize call, as ONNX values: `b` (count, 1, 1) the image
    each box reads, `y` (count, ch, 1) and `x` (count, 1, cw) in pixels (0 outside), `inside`
    (count, ch, cw) the real reads and `good_box` (count, 1, 1) the boxes of an image."""

    def __init__(self, ctx: LoweringContext, boxes: str, box_ind: str, image_shape: tuple[int, ...],
                 crop: Sequence[int], dtype: np.dtype) -> None:
        n, height, width, _ = image_shape
        self.ctx, self.dtype = ctx, dtype
        count = ctx.input_infos[1].shape[0]
        boxes = ctx.node("Cast", [boxes], to=1 if dtype == np.float32 else 11)

        def column(k: int) -> str:  # boxes[:, k] as (count, 1)
            return ctx.node("Slice", [boxes, ctx.ints([k]), ctx.ints([k + 1]), ctx.ints([1])])

        def axis(lo: str, hi: str, length: int, steps: int) -> str:
            if steps > 1:
                ramp = self.c(np.arange(steps) * (length - 1) / (steps - 1))
                start = ctx.node("Mul", [lo, self.c(length - 1)])
                return ctx.node("Add", [start, ctx.node("Mul", [ctx.node("Sub", [hi, lo]), ramp])])
            return ctx.node("Mul", [ctx.node("Add", [lo, hi]), self.c(0.5 * (length - 1))])

        y = ctx.node("Unsqueeze", [axis(column(0), column(2), height, crop[0]), ctx.ints([2])])
        x = ctx.node("Unsqueeze", [axis(column(1), column(3), width, crop[1]), ctx.ints([1])])
        ind = ctx.node("Cast", [box_ind], to=7)
        low, high = ctx.node("GreaterOrEqual", [ind, ctx.ints(0)]), ctx.node("Less", [ind, ctx.ints(n)])
        self.good_box = ctx.node("Reshape", [ctx.node("And", [low, high]), ctx.ints([count, 1, 1])])
        good_y, good_x = self._within(y, height), self._within(x, width)
        self.b = ctx.node("Where", [self.good_box, ctx.node("Reshape", [ind, ctx.ints([count, 1, 1])]),
                                    ctx.ints(0)])
        self.y, self.x = ctx.node("Where", [good_y, y, self.c(0)]), ctx.node("Where", [good_x, x, self.c(0)])
        self.inside = ctx.node("And", [ctx.node("And", [good_y, good_x]), self.good_box])
        self.full = ctx.ints([count, crop[0], crop[1], 1])

    def c(self, value: object) -> str:
        return self.ctx.constant(value, self.dtype)

    def _within(self, v: str, length: int) -> str:
        low = self.ctx.node("GreaterOrEqual", [v, self.c(0)])
        return self.ctx.node("And", [low, self.ctx.node("LessOrEqual", [v, self.c(length - 1)])])

    def at(self, row: str, col: str) -> str:
        """The (count, ch, cw, 3) indices (b, row, col) of the image for GatherND / ScatterND."""
        ctx = self.ctx
        as_int = [ctx.node("Cast", [v], to=7) for v in (self.b, row, col)]
        parts = [ctx.node("Expand", [ctx.node("Unsqueeze", [v, ctx.ints([-1])]), self.full]) for v in as_int]
        return ctx.node("Concat", parts, axis=-1)

    def corners(self, bilinear: bool) -> list[tuple[str, str, str | None]]:
        """(row, col, weight) of each read: the four corners for bilinear, one for nearest."""
        ctx = self.ctx
        if not bilinear:
            half = self.c(0.5)
            return [(ctx.node("Floor", [ctx.node("Add", [self.y, half])]),
                     ctx.node("Floor", [ctx.node("Add", [self.x, half])]), None)]
        y0, x0 = ctx.node("Floor", [self.y]), ctx.node("Floor", [self.x])
        y1, x1 = ctx.node("Ceil", [self.y]), ctx.node("Ceil", [self.x])
        wy, wx = ctx.node("Sub", [self.y, y0]), ctx.node("Sub", [self.x, x0])
        vy, vx = ctx.node("Sub", [self.c(1), wy]), ctx.node("Sub", [self.c(1), wx])
        return [(y0, x0, ctx.node("Mul", [vy, vx])), (y0, x1, ctx.node("Mul", [vy, wx])),
                (y1, x0, ctx.node("Mul", [wy, vx])), (y1, x1, ctx.node("Mul", [wy, wx]))]


@lowering("CropAndResize")
def lower_crop_and_resize(ctx: LoweringContext) -> None:
    image, boxes, box_ind = ctx.inputs
    shape = ctx.input_infos[0].shape
    if not (ctx.input_infos[1].shape[0] and shape[0] and shape[3]):
        raise ctx.unsupported("no boxes, images or channels (an empty crop: export the constant instead)")
    crop = _Crop(ctx, boxes, box_ind, shape, tuple(int(s) for s in ctx.attrs["crop_size"]), ctx.np_dtype(0))
    values = None
    for row, col, weight in crop.corners(ctx.attrs.get("method", "bilinear") == "bilinear"):
        read = ctx.node("GatherND", [image, crop.at(row, col)])
        if weight is not None:
            read = ctx.node("Mul", [read, ctx.node("Unsqueeze", [weight, ctx.ints([-1])])])
        values = read if values is None else ctx.node("Add", [values, read])
    assert values is not None
    extrapolated = crop.c(float(ctx.attrs.get("extrapolation_value", 0.0)))
    of_an_image = ctx.node("Unsqueeze", [crop.good_box, ctx.ints([-1])])
    fill = ctx.node("Where", [of_an_image, extrapolated, crop.c(0)])
    ctx.node("Where", [ctx.node("Unsqueeze", [crop.inside, ctx.ints([-1])]), values, fill], ctx.out)


@lowering("CropAndResizeGradImage")
def lower_crop_and_resize_grad_image(ctx: LoweringContext) -> None:
    """The adjoint of the crop's reads: grads (zero outside) added onto the pixels each read."""
    grads, boxes, box_ind = ctx.inputs
    shape = tuple(int(n) for n in ctx.attrs["image_shape"])
    dtype = ctx.np_dtype(0)
    if not (int(np.prod(ctx.input_infos[0].shape)) and shape[0]):
        ctx.node("Identity", [ctx.constant(np.zeros(shape, dtype))], ctx.out)
        return
    crop = _Crop(ctx, boxes, box_ind, shape, ctx.input_infos[0].shape[1:3], dtype)
    masked = ctx.node("Where", [ctx.node("Unsqueeze", [crop.inside, ctx.ints([-1])]), grads, crop.c(0)])
    out = ctx.constant(np.zeros(shape, dtype))
    for row, col, weight in crop.corners(ctx.attrs.get("method", "bilinear") == "bilinear"):
        if weight is None:
            sent = masked
        else:
            sent = ctx.node("Mul", [masked, ctx.node("Unsqueeze", [weight, ctx.ints([-1])])])
        out = ctx.node("ScatterND", [out, crop.at(row, col), sent], reduction="add")
    ctx.node("Identity", [out], ctx.out)
