"""Image kernels (NHWC, TF's semantics): ResizeBilinear, ResizeNearestNeighbor and their Grad
kernels, CropAndResize and CropAndResizeGradImage, FlipLeftRight, RotateWithOffset, Transform,
compiled once per value of the attributes that shape them (``_jit.with_attrs``; fill and
extrapolation values are traced), from ``tensorplug.kernel_helpers.image_sampling`` (gathers, and
``.at[].add`` for the adjoints); half floats compute in float32.

NonMaxSuppressionV3/V4/V5 give outputs whose length depends on the scores: they compute on the
host, and inside ``tp.jit`` raise TracedValueError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tensorplug.errors import TracedValueError
from tensorplug.kernel_helpers import image_sampling as sampling
from tensorplug_jax.kernels._jit import is_traced, with_attrs


def _scatter_add(target: Any, index: tuple[Any, ...], values: Any) -> Any:
    return target.at[index].add(values)


def _wide(x: Any) -> Any:
    return x.astype(jnp.float32) if jnp.issubdtype(x.dtype, jnp.floating) and x.dtype.itemsize < 4 else x


def _resize(nearest: bool) -> Any:
    def fn(x: Any, size: Any, align_corners: bool, half_pixel_centers: bool) -> Any:
        wide = x if nearest else _wide(x)
        out = sampling.resize(jnp, wide, size, align_corners, half_pixel_centers, nearest)
        return out.astype(x.dtype)
    return with_attrs(fn, static=("size", "align_corners", "half_pixel_centers"))


def _resize_grad(nearest: bool) -> Any:
    def fn(images: Any, dy: Any, align_corners: bool, half_pixel_centers: bool) -> Any:
        out = sampling.resize_grad(jnp, _scatter_add, _wide(dy), images.shape, align_corners,
                                   half_pixel_centers, nearest)
        return out.astype(dy.dtype)
    return with_attrs(fn, static=("align_corners", "half_pixel_centers"))


def _crop_and_resize(image: Any, boxes: Any, box_ind: Any, crop_size: Any, method: str,
                     extrapolation_value: Any) -> Any:
    out = sampling.crop_and_resize(jnp, _wide(image), boxes, box_ind, crop_size, method, extrapolation_value)
    return out.astype(image.dtype)


def _crop_and_resize_grad_image(grads: Any, boxes: Any, box_ind: Any, image_shape: Any, method: str) -> Any:
    out = sampling.crop_and_resize_grad_image(jnp, _scatter_add, _wide(grads), boxes, box_ind, image_shape,
                                              method)
    return out.astype(grads.dtype)


def _rotate_with_offset(image: Any, radians: float, fill_value: Any, center: Any) -> Any:
    return sampling.rotate_with_offset(jnp, image, radians, fill_value, center)


def _transform(image: Any, transforms: Any, interpolation: str, fill_mode: str, output_shape: Any,
               fill_value: Any) -> Any:
    out = sampling.transform(jnp, _wide(image), transforms, interpolation, fill_mode, fill_value,
                             output_shape)
    return out.astype(image.dtype)


def _nms(version: int) -> Callable[..., Any]:
    name = f"NonMaxSuppressionV{version}"

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        if is_traced(*inputs):
            raise TracedValueError(
                f"Kernel '{name}' on backend '{backend.name}': which boxes it selects depends on the values "
                "of the scores, which a function being compiled by tp.jit does not have. Call "
                "non-max suppression outside tp.jit.")
        # on the host: a loop of at most max_output_size vectorized steps over concrete values
        outs = tuple(jnp.asarray(a) for a in sampling.nms_outputs(version, np.asarray(inputs[0]),
                                                                  np.asarray(inputs[1]), attrs))
        return outs if len(outs) > 1 else outs[0]

    kernel.__name__ = name
    return kernel


KERNELS: dict[str, Callable[..., Any]] = {
    **sampling.resize_kernels(_resize, _resize_grad),
    "CropAndResize": with_attrs(_crop_and_resize, static=("crop_size", "method"),
                                traced=("extrapolation_value",)),
    "CropAndResizeGradImage": with_attrs(_crop_and_resize_grad_image, static=("image_shape", "method")),
    "FlipLeftRight": with_attrs(lambda x: x[:, :, ::-1]),
    "RotateWithOffset": with_attrs(_rotate_with_offset, static=("radians", "fill_value", "center")),
    "Transform": with_attrs(_transform, static=("interpolation", "fill_mode", "output_shape"),
                            traced=("fill_value",)),
    **{f"NonMaxSuppressionV{v}": _nms(v) for v in (3, 4, 5)},
}
