"""Batching rules of the image kernels that read images by row (CropAndResize and its image
gradient, Transform): vmap's batch merged into the images' batch, the boxes' and transforms'
rows merged alike, each box's image index moved to its example's images."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    batch_size,
    batching_rule,
    broadcast,
    reshaped,
    to_front,
)
from tensorplug.families.creation.ops import arange
from tensorplug.families.elementwise.ops import where
from tensorplug.kernels.dispatcher import dispatcher_of

_CROP, _CROP_GRAD = dispatcher_of("CropAndResize"), dispatcher_of("CropAndResizeGradImage")
_TRANSFORM = dispatcher_of("Transform")


def _front(x: Tensor, axis: int | None, size: int) -> Tensor:
    """`x` with the batch axis first, broadcast over the batch if unbatched."""
    return to_front(x, axis) if axis is not None else broadcast(x, (size,) + x.shape)


def _merged(x: Tensor) -> Tensor:
    """(B, n, ...) -> (B * n, ...)."""
    return reshaped(x, (x.shape[0] * x.shape[1],) + x.shape[2:])


def _split(x: Tensor, size: int) -> Tensor:
    """(B * n, ...) -> (B, n, ...)."""
    return reshaped(x, (size, x.shape[0] // size) + x.shape[1:])


def _boxes(inputs: Inputs, axes: Axes, size: int, images: int | None) -> tuple[Tensor, Tensor]:
    """boxes (B * k, 4) and box_ind (B * k,) for the merged batch; with `images` (the images
    per example, merged too) example b's indices moved to its images, b * images on, and those
    out of [0, images) kept out of range (they read nothing)."""
    boxes, box_ind = _front(inputs[1], axes[1], size), _front(inputs[2], axes[2], size)
    if images is not None:
        first = reshaped(arange(size, dtype=box_ind.dtype) * images, (size, 1))
        inside = (box_ind >= 0) & (box_ind < images)
        box_ind = where(inside, box_ind + first, -1)
    return _merged(boxes), _merged(box_ind)


@batching_rule("CropAndResize")
def _crop_and_resize(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    size = batch_size(inputs, axes)
    image = inputs[0]
    if axes[0] is not None:
        image = _merged(to_front(image, axes[0]))
    boxes, box_ind = _boxes(inputs, axes, size, None if axes[0] is None else image.shape[0] // size)
    return _split(_CROP((image, boxes, box_ind), attrs), size), 0


@batching_rule("CropAndResizeGradImage")
def _crop_and_resize_grad(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """Every example's gradient is an image of its own: the images merged as the output."""
    size = batch_size(inputs, axes)
    shape = tuple(attrs["image_shape"])
    boxes, box_ind = _boxes(inputs, axes, size, shape[0])
    grads = _merged(_front(inputs[0], axes[0], size))
    out = _CROP_GRAD((grads, boxes, box_ind), {**attrs, "image_shape": (size * shape[0],) + shape[1:]})
    return _split(out, size), 0


@batching_rule("Transform")
def _transform(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """One transform row per image of the merged batch (a shared (1, 8) row serves them all)."""
    size = batch_size(inputs, axes)
    (image, transforms), (ai, at) = inputs, axes
    image = _front(image, ai, size)
    n = image.shape[1]
    if at is not None or transforms.shape[0] != 1:
        transforms = _merged(broadcast(_front(transforms, at, size), (size, n, 8)))
    return _split(_TRANSFORM((_merged(image), transforms), attrs), size), 0
