"""Image kernels (NHWC, TF's semantics): ResizeBilinear, ResizeNearestNeighbor and their Grad
kernels, CropAndResize and CropAndResizeGradImage, FlipLeftRight, RotateWithOffset, Transform,
NonMaxSuppressionV3/V4/V5. The arithmetic is ``tensorplug.kernel_helpers.image_sampling`` (gathers,
and sorted ``np.add.reduceat`` sums for the adjoints); half floats compute in float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import image_sampling as sampling


def _scatter_add(target: np.ndarray, index: tuple[Any, ...], values: np.ndarray) -> np.ndarray:
    """``target[index] += values`` summing repeated indices (np.add.at's result, faster): the
    entries of `values` sorted by where they go along the indexed axis, each run summed by
    np.add.reduceat. `index` is full slices then one 1-d array (along that axis; a resize's
    taps, already sorted), or arrays over the leading axes (flattened into one)."""
    axis = sum(isinstance(i, slice) for i in index)
    if axis:
        rows, flat, parts = target, np.asarray(index[axis]), values
    else:
        arrays = np.broadcast_arrays(*index)
        rows = target.reshape(-1, *target.shape[len(arrays):])
        flat = np.ravel_multi_index(arrays, target.shape[:len(arrays)]).ravel()
        parts = values.reshape(-1, *values.shape[arrays[0].ndim:])
    if not flat.size:
        return target
    if np.any(flat[1:] < flat[:-1]):
        order = np.argsort(flat, kind="stable")
        flat, parts = flat[order], np.take(parts, order, axis=axis)
    starts = np.flatnonzero(np.concatenate([[True], flat[1:] != flat[:-1]]))
    rows[(slice(None),) * axis + (flat[starts],)] += np.add.reduceat(parts, starts, axis=axis)
    return target


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32) if x.dtype.kind in "fV" and x.dtype.itemsize < 4 else x


def _resize(nearest: bool) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x = inputs[0]
        out = sampling.resize(np, _wide(x) if not nearest else x, attrs["size"], attrs["align_corners"],
                              attrs["half_pixel_centers"], nearest)
        return out.astype(x.dtype, copy=False)
    return kernel


def _resize_grad(nearest: bool) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        images, dy = inputs
        out = sampling.resize_grad(np, _scatter_add, _wide(dy), images.shape, attrs["align_corners"],
                                   attrs["half_pixel_centers"], nearest)
        return out.astype(dy.dtype, copy=False)
    return kernel


def crop_and_resize(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    image, boxes, box_ind = inputs
    out = sampling.crop_and_resize(np, _wide(image), boxes, box_ind, attrs["crop_size"], attrs["method"],
                                   attrs["extrapolation_value"])
    return out.astype(image.dtype, copy=False)


def crop_and_resize_grad_image(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    grads, boxes, box_ind = inputs
    out = sampling.crop_and_resize_grad_image(np, _scatter_add, _wide(grads), boxes, box_ind,
                                              attrs["image_shape"], attrs["method"])
    return out.astype(grads.dtype, copy=False)


def flip_left_right(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return inputs[0][:, :, ::-1]


def rotate_with_offset(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return sampling.rotate_with_offset(np, inputs[0], attrs["radians"], attrs["fill_value"], attrs["center"])


def transform(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    image, transforms = inputs
    out = sampling.transform(np, _wide(image), transforms, attrs["interpolation"], attrs["fill_mode"],
                             attrs["fill_value"], attrs["output_shape"])
    return out.astype(image.dtype, copy=False)


def _nms(version: int) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        outs = sampling.nms_outputs(version, inputs[0], inputs[1], attrs)
        return outs if len(outs) > 1 else outs[0]
    return kernel


KERNELS: dict[str, Callable[..., Any]] = {
    **sampling.resize_kernels(_resize, _resize_grad),
    "CropAndResize": crop_and_resize,
    "CropAndResizeGradImage": crop_and_resize_grad_image,
    "FlipLeftRight": flip_left_right,
    "RotateWithOffset": rotate_with_offset,
    "Transform": transform,
    **{f"NonMaxSuppressionV{v}": _nms(v) for v in (3, 4, 5)},
}
