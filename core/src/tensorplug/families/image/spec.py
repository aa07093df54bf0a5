"""Kernel specs of the image family (TF.js's names; images are NHWC: batch, height, width,
channels): ResizeBilinear, ResizeNearestNeighbor and their Grad kernels (the gradients' backward
kernels), CropAndResize and its image gradient CropAndResizeGradImage (TF's), FlipLeftRight,
RotateWithOffset, Transform, and NonMaxSuppressionV3/V4/V5 (their outputs' lengths follow the
scores' values unless padded).

The shape rules here are the family's, shared with the ops (``image_shape``, ``boxes_shapes``,
``nms_shapes``); the sampling arithmetic is ``tensorplug.kernel_helpers.image_sampling``, shared with the
kernels through ``tensorplug.kernel_helpers`` (``image_sampling``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES, NUMERIC_DTYPES, float32, int32, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

METHODS = ("bilinear", "nearest")
FILL_MODES = ("constant", "reflect", "wrap", "nearest")


def image_shape(shape: Sequence[int], op: str | None = None, what: str = "images") -> tuple[int, ...]:
    """`shape` of a 4-d NHWC batch of images; ShapeError naming `op` otherwise."""
    if len(shape) != 4:
        raise ShapeError(f"{op_prefix(op)}{what} must be 4-d (batch, height, width, channels), got shape "
                         f"{tuple(shape)}; add a batch axis with tp.expand_dims(x, axis=0).")
    return tuple(shape)


def _sampled(shape: Sequence[int], op: str | None, what: str = "images") -> tuple[int, ...]:
    """An image shape with at least one row and column to read from."""
    shape = image_shape(shape, op, what)
    if shape[1] < 1 or shape[2] < 1:
        raise ShapeError(f"{op_prefix(op)}{what} of shape {shape} have no pixel to read; height and "
                         "width must be >= 1.")
    return shape


def _pair(value: Any) -> tuple[int, int]:
    out = tuple(as_int(v) for v in value)
    if len(out) != 2 or min(out) < 1:
        raise ValueError(f"expected (height, width), two ints >= 1, got {value!r}")
    return out


def _pair_or_none(value: Any) -> tuple[int, int] | None:
    return None if value is None else _pair(value)


def _choice(options: tuple[str, ...]) -> Any:
    def check(value: Any) -> str:
        if value not in options:
            raise ValueError(f"expected one of {options}, got {value!r}")
        return str(value)
    return check


def _float(value: Any) -> float:
    return float(value)


def _floats_or_float(value: Any) -> float | tuple[float, ...]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return tuple(float(v) for v in value)


def _center(value: Any) -> float | tuple[float, float]:
    out = _floats_or_float(value)
    if isinstance(out, tuple) and len(out) != 2:
        raise ValueError(f"center must be one fraction or (x, y) fractions, got {value!r}")
    return out


def _int_shape(value: Any) -> tuple[int, ...]:
    return tuple(as_int(v) for v in value)


def _flags_rule(attrs: Mapping[str, Any], op: str | None) -> None:
    if attrs["align_corners"] and attrs["half_pixel_centers"]:
        raise ShapeError(f"{op_prefix(op)}align_corners and half_pixel_centers cannot both be True; "
                         "pick one.")


def resized_shape(shape: Sequence[int], size: Sequence[int], attrs: Mapping[str, Any],
                  op: str | None = None) -> tuple[int, ...]:
    """The shape of images of `shape` resized to `size` (checks the flags too)."""
    n, _, _, c = _sampled(shape, op)
    _flags_rule(attrs, op)
    return (n, size[0], size[1], c)


def _resize_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(resized_shape(x.shape, attrs["size"], attrs), x.dtype)]


def _resize_grad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    images, dy = infos
    want = resized_shape(images.shape, image_shape(dy.shape, what="dy")[1:3], attrs)
    if dy.shape != want:
        raise ShapeError(f"dy has shape {dy.shape}, but resizing images of shape {images.shape} to "
                         f"{dy.shape[1:3]} gives {want}; pass the forward pass's images and gradient.")
    return [TensorInfo(images.shape, dy.dtype)]


_FLAGS = (
    AttrSpec("align_corners", False, as_bool, "the corner pixels of input and output line up"),
    AttrSpec("half_pixel_centers", False, as_bool, "pixels are sampled at their centers (x + 0.5)"),
)
_SIZE = AttrSpec("size", REQUIRED, _pair, "(new_height, new_width)")

RESIZE_BILINEAR = declare_spec(KernelSpec(
    name="ResizeBilinear", inputs=("images",), infer=_resize_rule, attrs=(_SIZE, *_FLAGS),
    input_dtypes={"images": FLOAT_DTYPES},
    doc="images (N, H, W, C) resized to `size` by bilinear interpolation (TF's rule)",
))
RESIZE_BILINEAR_GRAD = declare_spec(KernelSpec(
    name="ResizeBilinearGrad", inputs=("images", "dy"), infer=_resize_grad_rule, attrs=_FLAGS,
    input_dtypes={"images": FLOAT_DTYPES, "dy": FLOAT_DTYPES}, same_dtype=("images", "dy"),
    doc="the gradient of ResizeBilinear in images: dy sent back to the pixels each output read, "
        "by their weights (images give the shape only)",
))
RESIZE_NEAREST_NEIGHBOR = declare_spec(KernelSpec(
    name="ResizeNearestNeighbor", inputs=("images",), infer=_resize_rule, attrs=(_SIZE, *_FLAGS),
    input_dtypes={"images": NUMERIC_DTYPES},
    doc="images (N, H, W, C) resized to `size`, each output the nearest input pixel (TF's rule)",
))
RESIZE_NEAREST_NEIGHBOR_GRAD = declare_spec(KernelSpec(
    name="ResizeNearestNeighborGrad", inputs=("images", "dy"), infer=_resize_grad_rule, attrs=_FLAGS,
    input_dtypes={"images": FLOAT_DTYPES, "dy": FLOAT_DTYPES}, same_dtype=("images", "dy"),
    doc="the gradient of ResizeNearestNeighbor in images: dy summed onto the pixel each output read",
))


# -- CropAndResize -----------------------------------------------------------------------------
def boxes_shapes(boxes: Sequence[int], box_ind: Sequence[int], op: str | None = None) -> int:
    """The number of boxes: boxes must be (num_boxes, 4) and box_ind (num_boxes,)."""
    if len(boxes) != 2 or boxes[1] != 4 or tuple(box_ind) != (boxes[0],):
        raise ShapeError(f"{op_prefix(op)}boxes must be (num_boxes, 4) (y1, x1, y2, x2) and box_ind "
                         f"(num_boxes,), got shapes {tuple(boxes)} and {tuple(box_ind)}.")
    return int(boxes[0])


def _crop_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    image, boxes, box_ind = infos
    n, _, _, c = _sampled(image.shape, None, "image")
    count = boxes_shapes(boxes.shape, box_ind.shape)
    return [TensorInfo((count, *attrs["crop_size"], c), image.dtype)]


def _crop_grad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    grads, boxes, box_ind = infos
    shape = attrs["image_shape"]
    _sampled(shape, None, "image_shape")
    count = boxes_shapes(boxes.shape, box_ind.shape)
    if len(grads.shape) != 4 or grads.shape[0] != count or grads.shape[3] != shape[3]:
        raise ShapeError(f"grads has shape {grads.shape}; CropAndResize of {count} boxes from images of "
                         f"shape {tuple(shape)} gives ({count}, crop_height, crop_width, {shape[3]}).")
    return [TensorInfo(tuple(shape), grads.dtype)]


_METHOD = AttrSpec("method", "bilinear", _choice(METHODS), "'bilinear' or 'nearest' sampling")
#: float32 boxes and int32 box_ind, as TF's and TF.js's (no gradient; the op casts to them)
_BOX_DTYPES = {"boxes": (float32,), "box_ind": (int32,)}
CROP_AND_RESIZE = declare_spec(KernelSpec(
    name="CropAndResize", inputs=("image", "boxes", "box_ind"), infer=_crop_rule,
    attrs=(AttrSpec("crop_size", REQUIRED, _pair, "(crop_height, crop_width)"), _METHOD,
           AttrSpec("extrapolation_value", 0.0, _float, "the value of points outside the image")),
    input_dtypes={"image": FLOAT_DTYPES, **_BOX_DTYPES},
    doc="crops of image (N, H, W, C) at normalized boxes (y1, x1, y2, x2) of batch rows box_ind, "
        "each resized to crop_size: (num_boxes, crop_h, crop_w, C)",
))
CROP_AND_RESIZE_GRAD_IMAGE = declare_spec(KernelSpec(
    name="CropAndResizeGradImage", inputs=("grads", "boxes", "box_ind"), infer=_crop_grad_rule,
    attrs=(AttrSpec("image_shape", REQUIRED, _int_shape, "the image's shape (N, H, W, C)"), _METHOD),
    input_dtypes={"grads": FLOAT_DTYPES, **_BOX_DTYPES},
    doc="the gradient of CropAndResize in the image: grads summed onto the pixels each point read",
))


# -- FlipLeftRight, RotateWithOffset, Transform ------------------------------------------------
def _same_image(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(image_shape(infos[0].shape, what="image"), infos[0].dtype)]


def _fill_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = _same_image(infos, attrs)[0]
    fill = attrs["fill_value"]
    c = x.shape[3]
    if isinstance(fill, tuple) and len(fill) != c and not (len(fill) == 3 and c == 4):
        raise ShapeError(f"fill_value {fill} has {len(fill)} values for {c} channels; give one number or "
                         "one per channel (or an RGB triple for RGBA images).")
    return [x]


FLIP_LEFT_RIGHT = declare_spec(KernelSpec(
    name="FlipLeftRight", inputs=("image",), infer=_same_image, input_dtypes={"image": NUMERIC_DTYPES},
    doc="image (N, H, W, C) mirrored along its width",
))
ROTATE_WITH_OFFSET = declare_spec(KernelSpec(
    name="RotateWithOffset", inputs=("image",), infer=_fill_rule, differentiable=False,
    attrs=(AttrSpec("radians", REQUIRED, _float, "the rotation angle"),
           AttrSpec("fill_value", 0.0, _floats_or_float, "one number, or one per channel"),
           AttrSpec("center", 0.5, _center, "the center: one fraction, or (x, y) fractions of the size")),
    input_dtypes={"image": NUMERIC_DTYPES},
    doc="image (N, H, W, C) rotated by radians about center, each pixel the nearest source pixel, "
        "fill_value where the source leaves the image (TF.js's RotateWithOffset)",
))


def _transform_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    image, transforms = infos
    n, h, w, c = image_shape(image.shape, what="image")
    if len(transforms.shape) != 2 or transforms.shape[1] != 8 or transforms.shape[0] not in (1, n):
        raise ShapeError(f"transforms must be (1, 8) or ({n}, 8), one row per image, got shape "
                         f"{transforms.shape}.")
    out = attrs["output_shape"] or (h, w)
    return [TensorInfo((n, *out, c), image.dtype)]


TRANSFORM = declare_spec(KernelSpec(
    name="Transform", inputs=("image", "transforms"), infer=_transform_rule, differentiable=False,
    attrs=(AttrSpec("interpolation", "nearest", _choice(METHODS), "'nearest' or 'bilinear'"),
           AttrSpec("fill_mode", "constant", _choice(FILL_MODES), "how points outside the image read"),
           AttrSpec("fill_value", 0.0, _float, "the value read outside the image in 'constant' mode"),
           AttrSpec("output_shape", None, _pair_or_none, "(height, width) of the output; None: the image's")),
    input_dtypes={"image": FLOAT_DTYPES, "transforms": FLOAT_DTYPES},
    doc="image (N, H, W, C) under projective transforms [a0, a1, a2, b0, b1, b2, c0, c1] mapping "
        "output points to input points (TF's ImageProjectiveTransformV3)",
))


# -- NonMaxSuppression -------------------------------------------------------------------------
def nms_shapes(boxes: Sequence[int], scores: Sequence[int], op: str | None = None) -> int:
    """The number of boxes: boxes (n, 4), scores (n,)."""
    if len(boxes) != 2 or boxes[1] != 4 or tuple(scores) != (boxes[0],):
        raise ShapeError(f"{op_prefix(op)}boxes must be (num_boxes, 4) and scores (num_boxes,), got shapes "
                         f"{tuple(boxes)} and {tuple(scores)}.")
    return int(boxes[0])


def _threshold(value: Any) -> float:
    out = float(value)
    if not 0.0 <= out <= 1.0:
        raise ValueError(f"iou_threshold must be in [0, 1], got {value!r}")
    return out


def _count(value: Any) -> int:
    out = as_int(value)
    if out < 0:
        raise ValueError(f"max_output_size must be >= 0, got {value!r}")
    return out


def _nms_rule(scores_out: bool, valid_out: bool) -> Any:
    def rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
        boxes, scores = infos
        nms_shapes(boxes.shape, scores.shape)
        length = attrs["max_output_size"] if attrs.get("pad_to_max_output_size") else -1
        out = [TensorInfo((length,), int64)]
        if scores_out:
            out.append(TensorInfo((length,), scores.dtype))
        if valid_out:
            out.append(TensorInfo((), int64))
        return out
    return rule


_NMS_ATTRS = (
    AttrSpec("max_output_size", REQUIRED, _count, "the most boxes to select"),
    AttrSpec("iou_threshold", 0.5, _threshold, "boxes overlapping a selected one this much or more leave"),
    AttrSpec("score_threshold", float("-inf"), _float, "boxes scoring this or less are never selected"),
)
_PAD = AttrSpec("pad_to_max_output_size", False, as_bool, "pad the indices with zeros to max_output_size")
_NMS_DTYPES = {"boxes": FLOAT_DTYPES, "scores": FLOAT_DTYPES}
NON_MAX_SUPPRESSION_V3 = declare_spec(KernelSpec(
    name="NonMaxSuppressionV3", inputs=("boxes", "scores"), outputs=("selected_indices",),
    infer=_nms_rule(False, False), attrs=_NMS_ATTRS, input_dtypes=_NMS_DTYPES, differentiable=False,
    doc="int64 indices of the boxes greedy non-max suppression selects, by descending score",
))
NON_MAX_SUPPRESSION_V4 = declare_spec(KernelSpec(
    name="NonMaxSuppressionV4", inputs=("boxes", "scores"), outputs=("selected_indices", "valid_outputs"),
    infer=_nms_rule(False, True), attrs=(*_NMS_ATTRS, _PAD), input_dtypes=_NMS_DTYPES,
    differentiable=False,
    doc="NonMaxSuppressionV3's indices (zero-padded to max_output_size if asked) and their count",
))
NON_MAX_SUPPRESSION_V5 = declare_spec(KernelSpec(
    name="NonMaxSuppressionV5", inputs=("boxes", "scores"),
    outputs=("selected_indices", "selected_scores", "valid_outputs"), infer=_nms_rule(True, True),
    attrs=(*_NMS_ATTRS, AttrSpec("soft_nms_sigma", 0.0, _float, "> 0: soft NMS, scores decay by overlap"),
           _PAD),
    input_dtypes=_NMS_DTYPES, differentiable=False,
    doc="(soft) non-max suppression: the selected indices, their (decayed) scores and their count",
))
