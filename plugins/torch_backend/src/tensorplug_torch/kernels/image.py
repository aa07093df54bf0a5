"""Image kernels (NHWC, TF's semantics): ResizeBilinear, ResizeNearestNeighbor and their Grad
kernels, CropAndResize and CropAndResizeGradImage, FlipLeftRight, RotateWithOffset, Transform,
NonMaxSuppressionV3/V4/V5. Where the pixels are read comes from
``tensorplug.kernel_helpers.image_sampling``; half floats compute in float32.

Resizes gather each axis' taps (``index_select``) and weigh them; their Grad kernels add dy back
to the taps (``index_add_``). FlipLeftRight and RotateWithOffset gather. CropAndResize, its
gradient and Transform sample at arbitrary points by TF's rules, which torch has no op for
(``grid_sample``'s edges and rounding differ): they run the helpers' numpy computation on host
copies. Non-max suppression runs on host values: its output's length depends on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from tensorplug.kernel_helpers import image_sampling as sampling
from tensorplug_torch.kernels._host import from_host, to_host
from tensorplug_torch.kernels._layouts import compute_dtype

__all__ = ["KERNELS"]


def _along(w: np.ndarray, axis: int, like: torch.Tensor) -> torch.Tensor:
    """Host weights `w` as a tensor of `like`'s dtype and device, along `axis` of its rank."""
    shape = [-1 if a == axis else 1 for a in range(like.ndim)]
    return torch.from_numpy(w).to(like.device, like.dtype).reshape(shape)


def _index(idx: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(idx).to(like.device)


def _resize(nearest: bool) -> Callable[..., torch.Tensor]:
    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
        x = inputs[0]
        y = x if nearest else x.to(compute_dtype(x.dtype))
        for axis, n in ((1, attrs["size"][0]), (2, attrs["size"][1])):
            taps = sampling.resize_taps(y.shape[axis], n, attrs["align_corners"], attrs["half_pixel_centers"],
                                        nearest)
            if nearest:
                y = y.index_select(axis, _index(taps[0][0], y))
                continue
            (lo, w_lo), (hi, w_hi) = taps
            y = y.index_select(axis, _index(lo, y)) * _along(w_lo, axis, y) + \
                y.index_select(axis, _index(hi, y)) * _along(w_hi, axis, y)
        return y.to(x.dtype)
    return kernel


def _resize_grad(nearest: bool) -> Callable[..., torch.Tensor]:
    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
        images, dy = inputs
        g = dy.to(compute_dtype(dy.dtype))
        for axis in (2, 1):
            size = images.shape[axis]
            taps = sampling.resize_taps(size, g.shape[axis], attrs["align_corners"],
                                        attrs["half_pixel_centers"], nearest)
            shape = list(g.shape)
            shape[axis] = size
            out = g.new_zeros(shape)
            for idx, w in taps:
                out.index_add_(axis, _index(idx, g), g * _along(w, axis, g))
            g = out
        return g.to(dy.dtype)
    return kernel


def flip_left_right(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    return torch.flip(inputs[0], (2,))


def rotate_with_offset(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    image = inputs[0]
    _, height, width, channels = image.shape
    if not image.numel():
        return image
    py, px = sampling.rotate_points(image.shape, attrs["radians"], attrs["center"])
    inside = (py >= 0) & (py < height) & (px >= 0) & (px < width)
    rows, cols = _index(np.where(inside, py, 0).astype(np.int64), image), _index(
        np.where(inside, px, 0).astype(np.int64), image)
    fill = from_host(sampling.channel_fill(attrs["fill_value"], channels), image)
    return torch.where(_index(inside, image)[None, :, :, None], image[:, rows, cols], fill)


# -- on host copies: TF's point sampling (no torch op) and non-max suppression ------------------------
def _add_at(target: np.ndarray, index: tuple[Any, ...], values: np.ndarray) -> np.ndarray:
    np.add.at(target, index, values)
    return target


def crop_and_resize(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    image, boxes, box_ind = inputs
    out = sampling.crop_and_resize(np, to_host(image), to_host(boxes), to_host(box_ind), attrs["crop_size"],
                                   attrs["method"], attrs["extrapolation_value"])
    return from_host(out, image)


def crop_and_resize_grad_image(inputs: list[torch.Tensor], attrs: dict[str, Any],
                               backend: Any) -> torch.Tensor:
    grads, boxes, box_ind = inputs
    out = sampling.crop_and_resize_grad_image(np, _add_at, to_host(grads), to_host(boxes), to_host(box_ind),
                                              attrs["image_shape"], attrs["method"])
    return from_host(out, grads)


def transform(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    image, transforms = inputs
    out = sampling.transform(np, to_host(image), to_host(transforms), attrs["interpolation"],
                             attrs["fill_mode"], attrs["fill_value"], attrs["output_shape"])
    return from_host(out, image)


def _nms(version: int) -> Callable[..., Any]:
    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> Any:
        boxes = inputs[0]
        outs = sampling.nms_outputs(version, to_host(boxes), to_host(inputs[1]), attrs)
        scores = inputs[1].dtype
        back = tuple(from_host(o, boxes, torch.int64 if o.dtype == np.int64 else scores) for o in outs)
        return back if len(back) > 1 else back[0]
    return kernel


KERNELS: dict[str, Callable[..., Any]] = {
    **sampling.resize_kernels(_resize, _resize_grad),
    "FlipLeftRight": flip_left_right,
    "RotateWithOffset": rotate_with_offset,
    # on host copies
    "CropAndResize": crop_and_resize,
    "CropAndResizeGradImage": crop_and_resize_grad_image,
    "Transform": transform,
    **{f"NonMaxSuppressionV{v}": _nms(v) for v in (3, 4, 5)},
}
