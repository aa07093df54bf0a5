"""ONNX lowerings of the image family: FlipLeftRight (a reversed width axis) and the resizes
(ONNX's ``Resize`` over the height and width axes of channels-last images, with TF's
coordinate rules)."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.structure.onnx_lowerings import reverse

__all__ = ["lower_flip_left_right", "lower_resize"]


@lowering("FlipLeftRight")
def lower_flip_left_right(ctx: LoweringContext) -> None:
    reverse(ctx, ctx.inputs[0], [2], ctx.out)


@lowering("ResizeBilinear")
@lowering("ResizeNearestNeighbor")
def lower_resize(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    axes = [rank - 3, rank - 2]
    size = [int(s) for s in ctx.attrs["size"]]
    bilinear = ctx.kernel == "ResizeBilinear"
    if ctx.attrs.get("align_corners"):
        mode = "align_corners"
    elif ctx.attrs.get("half_pixel_centers"):
        mode = "half_pixel" if bilinear else "tf_half_pixel_for_nn"
    else:
        mode = "asymmetric"
    extra = {} if bilinear else {"nearest_mode": "round_prefer_ceil" if mode == "align_corners" else "floor"}
    ctx.node("Resize", [ctx.inputs[0], "", "", ctx.ints(size)], ctx.out, axes=axes,
             mode="linear" if bilinear else "nearest", coordinate_transformation_mode=mode, **extra)
