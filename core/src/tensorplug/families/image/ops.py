"""Image ops (TF.js's ``tf.image``), public in ``tp.image``; images are NHWC (batch, height,
width, channels): resize_bilinear, resize_nearest_neighbor, resize, crop_and_resize,
flip_left_right, rotate_with_offset, transform, and non-max suppression (non_max_suppression,
non_max_suppression_padded, non_max_suppression_with_scores)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float32, int32, int64
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype, caller, to_float
from tensorplug.families.elementwise.ops import clip
from tensorplug.families.image.spec import (
    FILL_MODES,
    METHODS,
    boxes_shapes,
    image_shape,
    nms_shapes,
    resized_shape,
)
from tensorplug.families.manipulation.ops import expand_dims, squeeze
from tensorplug.families.scatter_nd.ops import int_values
from tensorplug.kernels.shape_rules import fitting_value

__all__ = ["crop_and_resize", "flip_left_right", "non_max_suppression", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "resize", "resize_bilinear", "resize_nearest_neighbor",
           "rotate_with_offset", "transform"]

_RESIZE = {False: caller("ResizeBilinear"), True: caller("ResizeNearestNeighbor")}
_CROP = caller("CropAndResize")
_FLIP = caller("FlipLeftRight")
_ROTATE = caller("RotateWithOffset")
_TRANSFORM = caller("Transform")
_NMS = {3: caller("NonMaxSuppressionV3"), 4: caller("NonMaxSuppressionV4"), 5: caller("NonMaxSuppressionV5")}


def _choice(value: Any, options: Sequence[str], op: str, arg: str) -> str:
    if not isinstance(value, str) or value not in options:
        raise ArgumentError(f"{op}: {arg} must be one of {', '.join(map(repr, options))}, got "
                            f"{valid.shown(value)}.")
    return value


def _floats(x: Any, op: str, arg: str) -> Tensor:
    """x as a real floating tensor (integers and bools promoted to the default float)."""
    x = asarray(x)
    if x._dtype.is_complex:
        raise DTypeError(f"{op}: {arg} must be real, got {x._dtype.name}; take tp.real(x) or tp.abs(x) "
                         "first.")
    return x if x._dtype.is_floating else to_float(x)


def _real(x: Any, op: str, arg: str) -> Tensor:
    """x as a real numeric tensor (not bool or complex): its dtype kept."""
    x = asarray(x)
    if x._dtype.is_bool or x._dtype.is_complex:
        raise DTypeError(f"{op}: {arg} must be real numbers, got {x._dtype.name}; cast it first, e.g. "
                         "x.astype(tp.float32).")
    return x


def _size(value: Any, op: str, arg: str) -> tuple[int, int]:
    dims = valid.shape(value, op, arg)
    if len(dims) != 2 or min(dims) < 1:
        raise ShapeError(f"{op}: {arg} must be (height, width), two sizes >= 1, got {dims}.")
    return dims


def _resize(op: str, images: Any, size: Any, align_corners: Any, half_pixel_centers: Any,
            nearest: bool) -> Tensor:
    x = _real(images, op, "images") if nearest else _floats(images, op, "images")
    size = _size(size, op, "size")
    attrs = {"size": size, "align_corners": valid.flag(align_corners, op, "align_corners"),
             "half_pixel_centers": valid.flag(half_pixel_centers, op, "half_pixel_centers")}
    single = x.ndim == 3  # one image (height, width, channels), as TF.js takes it
    shape = (1, *x.shape) if single else tuple(x.shape)
    resized_shape(shape, size, attrs, op)
    valid.checked_size((shape[0], size[0], max(shape[2], size[1]), shape[3]), x._backend, op)  # (both passes)
    if single:
        return squeeze(_RESIZE[nearest]((expand_dims(x, axis=0),), attrs), axis=0)
    return _RESIZE[nearest]((x,), attrs)


def resize_bilinear(images: Any, size: Any, align_corners: bool = False,
                    half_pixel_centers: bool = False) -> Tensor:
    """images (batch, height, width, channels), or one image (height, width, channels), resized
    to size (new_height, new_width) by bilinear interpolation (TF's rule; integers promote to
    the default float). `align_corners` lines up the corner pixels; `half_pixel_centers`
    samples at pixel centers, as jax.image.resize does."""
    return _resize("resize_bilinear", images, size, align_corners, half_pixel_centers, nearest=False)


def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False,
                            half_pixel_centers: bool = False) -> Tensor:
    """images resized to size (as resize_bilinear), each output the nearest input pixel; the
    dtype is kept."""
    return _resize("resize_nearest_neighbor", images, size, align_corners, half_pixel_centers, nearest=True)


def resize(images: Any, size: Any, method: str = "bilinear") -> Tensor:
    """images resized to size with `method` 'bilinear' or 'nearest', sampling at pixel centers
    (half_pixel_centers, TF 2's tf.image.resize without antialiasing)."""
    method = _choice(method, METHODS, "resize", "method")
    return _resize("resize", images, size, False, True, nearest=method == "nearest")


def crop_and_resize(image: Any, boxes: Any, box_ind: Any, crop_size: Any, method: str = "bilinear",
                    extrapolation_value: float = 0.0) -> Tensor:
    """Crops of image (batch, height, width, channels) at boxes (num_boxes, 4) of normalized
    corners (y1, x1, y2, x2), box_ind (num_boxes,) naming each box's image, each resized to
    crop_size (crop_height, crop_width): (num_boxes, crop_height, crop_width, channels).
    Points outside the image read `extrapolation_value`. Boxes are float32 (TF.js's);
    differentiable in the image only (a gradient through boxes is an AutodiffError)."""
    op = "crop_and_resize"
    x = _floats(image, op, "image")
    b = _floats(boxes, op, "boxes")
    b = b if b._dtype is float32 else astype(b, float32)  # (TF.js's boxes: float32)
    n, h, w, _ = image_shape(x.shape, op, "image")
    ind = asarray(int_values(op, box_ind, "box_ind"))
    if ind._dtype is not int32:  # (TF.js's int32; any index out of [0, batch) still reads nothing)
        ind = astype(clip(astype(ind, int64), -1, n), int32)
    crop = _size(crop_size, op, "crop_size")
    attrs = {"crop_size": crop, "method": _choice(method, METHODS, op, "method"),
             "extrapolation_value": float(valid.number(extrapolation_value, op, "extrapolation_value"))}
    if h < 1 or w < 1:
        raise ShapeError(f"{op}: image of shape {x.shape} has no pixel to crop; height and width must be "
                         ">= 1.")
    count = boxes_shapes(b.shape, ind.shape, op)
    valid.checked_size((count, crop[0], crop[1], x.shape[3]), x._backend, op)
    return _CROP((x, b, ind), attrs)


def flip_left_right(image: Any) -> Tensor:
    """image (batch, height, width, channels) mirrored along its width."""
    x = _real(image, "flip_left_right", "image")
    image_shape(x.shape, "flip_left_right", "image")
    return _FLIP((x,), {})


def _fraction_pair(value: Any, op: str, arg: str) -> float | tuple[float, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(float(valid.number(v, op, arg)) for v in value)
    return float(valid.number(value, op, arg))


def rotate_with_offset(image: Any, radians: float, fill_value: Any = 0, center: Any = 0.5) -> Tensor:
    """image (batch, height, width, channels) rotated by `radians` about `center` (a fraction of
    the size, or (x, y) fractions), each output pixel the nearest source pixel; `fill_value`
    (one number, or one per channel) where the source leaves the image (TF.js's
    rotateWithOffset; not differentiable)."""
    op = "rotate_with_offset"
    x = _real(image, op, "image")
    n, h, w, c = image_shape(x.shape, op, "image")
    angle = float(valid.number(radians, op, "radians"))
    if not math.isfinite(angle):
        raise ShapeError(f"{op}: radians must be finite, got {angle}.")
    fill = _fraction_pair(fill_value, op, "fill_value")
    if isinstance(fill, tuple) and len(fill) != c and not (len(fill) == 3 and c == 4):
        raise ShapeError(f"{op}: fill_value {fill} has {len(fill)} values for {c} channels; give one "
                         "number or one per channel.")
    for value in fill if isinstance(fill, tuple) else (fill,):  # (uint8 images: 300 would wrap)
        fitting_value(value, x.dtype, "fill_value", op)
    where = _fraction_pair(center, op, "center")
    if isinstance(where, tuple) and len(where) != 2:
        raise ShapeError(f"{op}: center must be one fraction or (x, y) fractions, got {where}.")
    return _ROTATE((x,), {"radians": angle, "fill_value": fill, "center": where})


def transform(image: Any, transforms: Any, interpolation: str = "nearest", fill_mode: str = "constant",
              fill_value: float = 0.0, output_shape: Any = None) -> Tensor:
    """image (batch, height, width, channels) under projective transforms (batch or 1, 8): row
    [a0, a1, a2, b0, b1, b2, c0, c1] maps output point (x, y) to input point ((a0 x + a1 y +
    a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1. `fill_mode` ('constant', 'reflect',
    'wrap', 'nearest') says what points outside the image read; `output_shape` (height, width)
    defaults to the image's (TF's ImageProjectiveTransformV3; not differentiable)."""
    op = "transform"
    x = _floats(image, op, "image")
    t = _floats(transforms, op, "transforms")
    if t._dtype is not x._dtype:
        t = astype(t, x._dtype)
    n = image_shape(x.shape, op, "image")[0]
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, n):
        raise ShapeError(f"{op}: transforms must be (1, 8) or ({n}, 8), one row per image, got shape "
                         f"{t.shape}.")
    out = None if output_shape is None else _size(output_shape, op, "output_shape")
    attrs = {"interpolation": _choice(interpolation, METHODS, op, "interpolation"),
             "fill_mode": _choice(fill_mode, FILL_MODES, op, "fill_mode"),
             "fill_value": float(valid.number(fill_value, op, "fill_value")), "output_shape": out}
    valid.checked_size((n, *(out or x.shape[1:3]), x.shape[3]), x._backend, op)
    return _TRANSFORM((x, t), attrs)


def _nms_inputs(op: str, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
                score_threshold: Any) -> tuple[Tensor, Tensor, dict[str, Any]]:
    b = _floats(boxes, op, "boxes")
    s = _floats(scores, op, "scores")
    if s._dtype is not b._dtype:
        s = astype(s, b._dtype)
    count = nms_shapes(b.shape, s.shape, op)
    iou = float(valid.number(iou_threshold, op, "iou_threshold"))
    if not 0.0 <= iou <= 1.0:
        raise ShapeError(f"{op}: iou_threshold must be in [0, 1], got {iou}.")
    attrs = {"max_output_size": min(valid.size(max_output_size, op, "max_output_size"), count),
             "iou_threshold": iou,
             "score_threshold": float(valid.number(score_threshold, op, "score_threshold"))}
    return b, s, attrs


def non_max_suppression(boxes: Any, scores: Any, max_output_size: int, iou_threshold: float = 0.5,
                        score_threshold: float = -math.inf) -> Tensor:
    """The int64 indices of at most `max_output_size` of boxes (num_boxes, 4) (corners (y1, x1,
    y2, x2), in any order), picked greedily by descending scores (num_boxes,): each pick drops
    the boxes overlapping it with IoU >= `iou_threshold`; boxes scoring `score_threshold` or
    less are never picked. The length depends on the values: not under tp.jit."""
    b, s, attrs = _nms_inputs("non_max_suppression", boxes, scores, max_output_size, iou_threshold,
                              score_threshold)
    out: Tensor = _NMS[3]((b, s), attrs)
    return out


def non_max_suppression_padded(boxes: Any, scores: Any, max_output_size: int, iou_threshold: float = 0.5,
                               score_threshold: float = -math.inf,
                               pad_to_max_output_size: bool = False) -> tuple[Tensor, Tensor]:
    """non_max_suppression's indices, zero-padded to min(max_output_size, num_boxes) with
    `pad_to_max_output_size`, and the int64 count of real ones (TF.js's
    nonMaxSuppressionPadded)."""
    op = "non_max_suppression_padded"
    b, s, attrs = _nms_inputs(op, boxes, scores, max_output_size, iou_threshold, score_threshold)
    attrs["pad_to_max_output_size"] = valid.flag(pad_to_max_output_size, op, "pad_to_max_output_size")
    indices, count = _NMS[4]((b, s), attrs)
    return indices, count


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: int, iou_threshold: float = 0.5,
                                    score_threshold: float = -math.inf,
                                    soft_nms_sigma: float = 0.0) -> tuple[Tensor, Tensor]:
    """non_max_suppression's indices and the scores they were picked with; with
    `soft_nms_sigma` > 0 (soft NMS) overlapping boxes are not dropped but their scores decay by
    exp(-0.5 iou^2 / soft_nms_sigma) with each pick."""
    op = "non_max_suppression_with_scores"
    b, s, attrs = _nms_inputs(op, boxes, scores, max_output_size, iou_threshold, score_threshold)
    sigma = float(valid.number(soft_nms_sigma, op, "soft_nms_sigma"))
    if not sigma >= 0.0:
        raise ShapeError(f"{op}: soft_nms_sigma must be >= 0, got {sigma}.")
    indices, picked, _ = _NMS[5]((b, s), {**attrs, "soft_nms_sigma": sigma, "pad_to_max_output_size": False})
    return indices, picked

