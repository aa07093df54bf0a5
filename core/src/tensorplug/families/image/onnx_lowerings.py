"""ONNX lowerings of the image family: FlipLeftRight (a reversed width axis), the resizes of
channels-last images (bilinear: ONNX's ``Resize`` with TF's coordinate rules; nearest: gathers
of the rows and columns ``resize_taps`` reads) and their gradients (the adjoint of each axis's
resize matrix, as ``Einsum``)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.structure.onnx_lowerings import reverse
from tensorplug.kernel_helpers.image_sampling import resize_taps

__all__ = ["lower_flip_left_right", "lower_resize", "lower_resize_nearest", "lower_resize_grad"]


@lowering("FlipLeftRight")
def lower_flip_left_right(ctx: LoweringContext) -> None:
    reverse(ctx, ctx.inputs[0], [2], ctx.out)


@lowering("ResizeBilinear")
def lower_resize(ctx: LoweringContext) -> None:
    """ONNX's ``Resize`` (linear) over the height and width axes, with TF's coordinate rule."""
    rank = len(ctx.input_infos[0].shape)
    size = [int(s) for s in ctx.attrs["size"]]
    if ctx.attrs.get("align_corners"):
        mode = "align_corners"
    elif ctx.attrs.get("half_pixel_centers"):
        mode = "half_pixel"
    else:
        mode = "asymmetric"
    ctx.node("Resize", [ctx.inputs[0], "", "", ctx.ints(size)], ctx.out, axes=[rank - 3, rank - 2],
             mode="linear", coordinate_transformation_mode=mode)


@lowering("ResizeNearestNeighbor")
def lower_resize_nearest(ctx: LoweringContext) -> None:
    """Two ``Gather``s of the rows and columns each output reads (constants of the shapes, as
    ``resize_taps`` gives them): exact for every value, infinities included."""
    _, height, width, _ = ctx.input_infos[0].shape
    out_h, out_w = (int(s) for s in ctx.attrs["size"])
    align, half = bool(ctx.attrs.get("align_corners")), bool(ctx.attrs.get("half_pixel_centers"))
    rows = resize_taps(height, out_h, align, half, True)[0][0]
    cols = resize_taps(width, out_w, align, half, True)[0][0]
    read = ctx.node("Gather", [ctx.inputs[0], ctx.constant(rows, np.int64)], axis=1)
    ctx.node("Gather", [read, ctx.constant(cols, np.int64)], ctx.out, axis=2)


def _axis_matrix(in_size: int, out_size: int, ctx: LoweringContext, nearest: bool) -> np.ndarray:
    """The (out, in) matrix of one axis's resize: each output's taps and weights as the kernels
    read them (``resize_taps``)."""
    matrix = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    taps = resize_taps(in_size, out_size, bool(ctx.attrs.get("align_corners")),
                       bool(ctx.attrs.get("half_pixel_centers")), nearest)
    for idx, weight in taps:
        np.add.at(matrix, (rows, idx), weight)
    return matrix


@lowering("ResizeBilinearGrad")
@lowering("ResizeNearestNeighborGrad")
def lower_resize_grad(ctx: LoweringContext) -> None:
    """The adjoint of the resize: dy contracted with each axis's (out, in) matrix (constants of
    the shapes), height then width, as ``Einsum``."""
    images, dy = ctx.inputs
    _, height, width, _ = ctx.input_infos[0].shape
    _, out_h, out_w, _ = ctx.input_infos[1].shape
    nearest = ctx.kernel == "ResizeNearestNeighborGrad"
    dtype = ctx.np_dtype(1)
    rows = ctx.constant(_axis_matrix(height, out_h, ctx, nearest).astype(dtype))
    cols = ctx.constant(_axis_matrix(width, out_w, ctx, nearest).astype(dtype))
    back = ctx.node("Einsum", [dy, rows], equation="nowc,oh->nhwc")
    ctx.node("Einsum", [back, cols], ctx.out, equation="nhoc,ow->nhwc")
