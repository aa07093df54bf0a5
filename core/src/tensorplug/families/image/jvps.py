"""JVP rules of the image kernels: each is linear in its image (the backward kernels in their
gradient input; their other inputs give shapes or places), so it runs on the tangent.
CropAndResize is affine in the image (its extrapolation value fills the outside): the tangent
is cropped with 0 there. Its boxes take no tangent, as they take no gradient."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.jvp_util import filled, jvp_rule, linear
from tensorplug.kernels.dispatcher import dispatcher_of

Tangents = tuple[Tensor | None, ...]

linear("FlipLeftRight", "ResizeBilinear", "ResizeNearestNeighbor")
linear("ResizeBilinearGrad", "ResizeNearestNeighborGrad", positions=(1,))  # (images, dy)
linear("CropAndResizeGradImage", positions=(0,))  # (grads, boxes, box_ind)


@jvp_rule("CropAndResize")
def _crop_and_resize(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                     attrs: Mapping[str, Any]) -> Tensor | None:
    if tangents[1] is not None:
        raise AutodiffError("crop_and_resize is not differentiable in its boxes (CropAndResize has no "
                            "tangent for them); pass the boxes as a constant, or wrap them in "
                            "tp.stop_gradient.")
    if tangents[0] is None:
        return None
    crop = dispatcher_of("CropAndResize")
    return crop(filled(primals, tangents, (0,)), {**attrs, "extrapolation_value": 0.0})
