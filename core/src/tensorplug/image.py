"""``tp.image``: TF.js's image ops on NHWC images (batch, height, width, channels): resizing
(resize, resize_bilinear, resize_nearest_neighbor), crop_and_resize, flip_left_right,
rotate_with_offset, projective transform, and non-max suppression of boxes
(non_max_suppression, non_max_suppression_padded, non_max_suppression_with_scores)."""

from __future__ import annotations

from tensorplug.families.image.ops import (
           crop_and_resize,
           flip_left_right,
           non_max_suppression,
           non_max_suppression_padded,
           non_max_suppression_with_scores,
           resize,
           resize_bilinear,
           resize_nearest_neighbor,
           rotate_with_offset,
           transform,
)

__all__ = ["crop_and_resize", "flip_left_right", "non_max_suppression", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "resize", "resize_bilinear", "resize_nearest_neighbor",
           "rotate_with_offset", "transform"]
