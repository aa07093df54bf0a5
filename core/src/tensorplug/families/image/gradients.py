"""Default gradients of the image family (TF's): ResizeBilinear and ResizeNearestNeighbor call
their Grad kernels; CropAndResize calls CropAndResizeGradImage for the image (the boxes get no
gradient: TF's CropAndResizeGradBoxes is not a kernel here, so differentiating through boxes is
an AutodiffError naming them); FlipLeftRight's gradient is FlipLeftRight.

The backward kernels are linear in their gradient input, their adjoint the forward kernel, so
they have gradients too (second order and beyond); their other inputs give shapes or choose
where values go: zero gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel

Grads = Mapping[str, Callable[[], Tensor]]


def _resize_gradients(name: str) -> None:
    grad_name = f"{name}Grad"

    @gradient(name, inputs=("images",))
    def _resize(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        (images,) = saved
        flags = {k: attrs[k] for k in ("align_corners", "half_pixel_centers")}
        return {"images": lambda: kernel(grad_name, images, dy, **flags)}

    @gradient(grad_name, inputs=("images", "dy"))
    def _resize_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        images, dy = saved
        return {"dy": lambda: kernel(name, g, size=dy.shape[1:3], **attrs),
                "images": lambda: tp.zeros_like(images)}


_resize_gradients("ResizeBilinear")
_resize_gradients("ResizeNearestNeighbor")


@gradient("CropAndResize", inputs=("image", "boxes", "box_ind"))
def _crop_and_resize(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    image, boxes, box_ind = saved
    return {"image": lambda: kernel("CropAndResizeGradImage", dy, boxes, box_ind, image_shape=image.shape,
                                    method=attrs["method"])}


@gradient("CropAndResizeGradImage", inputs=("grads", "boxes", "box_ind"))
def _crop_and_resize_grad_image(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    grads, boxes, box_ind = saved
    return {"grads": lambda: kernel("CropAndResize", g, boxes, box_ind, crop_size=grads.shape[1:3],
                                    method=attrs["method"], extrapolation_value=0.0)}


@gradient("FlipLeftRight")
def _flip_left_right(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"image": lambda: kernel("FlipLeftRight", dy)}
