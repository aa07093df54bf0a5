"""JVP rules of the image kernels (FlipLeftRight, ResizeBilinear, ResizeNearestNeighbor,
CropAndResize and the backward kernels) against jax (jax.image.resize, jnp.interp, a
map_coordinates crop, and their jax.vjp), on both backends; CropAndResize with a nonzero
extrapolation value (affine in the image), and refusing a tangent on its boxes; each rule
against its transposed gradient; and forward over reverse (hvp)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (jax_in_64_bits: autouse)
from _jvp_checks import (
    assert_hvp_matches_jax,
    assert_jvp_matches_jax,
    assert_rule_matches_transposed,
    backend,  # noqa: F401  (autouse: on both backends)
    random,
)
from tensorplug.errors import AutodiffError

BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.2, 0.1], [-0.3, 0.1, 1.2, 0.6]], np.float32)
BOX_IND = np.array([0, 1, 0], np.int32)
CROP = (3, 2)


def source(n_in, n_out, align_corners=False):
    """TF's source coordinate of each output along one axis (no half-pixel centers)."""
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    return scale * np.arange(n_out)


def interp(size, align_corners):
    """Bilinear resize as jnp.interp along height, then width (edges held, as TF clamps)."""
    def resize(x):
        for axis, n in ((1, size[0]), (2, size[1])):
            src = source(x.shape[axis], n, align_corners)
            x = jnp.apply_along_axis(lambda v, s=src: jnp.interp(s, jnp.arange(len(v)), v), axis, x)
        return x
    return jax.jit(resize)


def half_pixel(size, method):
    return jax.jit(lambda x: jax.image.resize(x, (x.shape[0], *size, x.shape[3]), method, antialias=False))


@jax.jit
def crop(image):
    """TF's CropAndResize (bilinear, extrapolation value -7) by map_coordinates."""
    h, w = image.shape[1:3]
    boxes, out = BOXES.astype(np.float64), []
    for k in range(len(boxes)):
        y1, x1, y2, x2 = boxes[k]
        yy, xx = np.meshgrid((y1 + (y2 - y1) * np.arange(CROP[0]) / (CROP[0] - 1)) * (h - 1),
                             (x1 + (x2 - x1) * np.arange(CROP[1]) / (CROP[1] - 1)) * (w - 1), indexing="ij")
        inside = (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
        planes = [jax.scipy.ndimage.map_coordinates(image[BOX_IND[k], :, :, c], [yy, xx], order=1)
                  for c in range(image.shape[3])]
        out.append(jnp.where(inside[..., None], jnp.stack(planes, axis=-1), -7.0))
    return jnp.stack(out)


def tp_crop(image):
    return tp.image.crop_and_resize(image, BOXES, BOX_IND, CROP, extrapolation_value=-7.0)


CASES = [
    pytest.param(tp.image.flip_left_right, lambda x: x[:, :, ::-1], id="flip_left_right"),
    pytest.param(lambda x: tp.image.resize_bilinear(x, (4, 2)), interp((4, 2), False), id="bilinear"),
    pytest.param(lambda x: tp.image.resize_bilinear(x, (2, 5), align_corners=True), interp((2, 5), True),
                 id="bilinear-align"),
    pytest.param(lambda x: tp.image.resize_bilinear(x, (5, 4), half_pixel_centers=True),
                 half_pixel((5, 4), "linear"), id="bilinear-half"),
    pytest.param(lambda x: tp.image.resize_nearest_neighbor(x, (5, 4), half_pixel_centers=True),
                 half_pixel((5, 4), "nearest"), id="nearest-half"),
    pytest.param(tp_crop, crop, id="crop_and_resize"),
]


@pytest.mark.parametrize(("f", "f_jax"), CASES)
def test_jvp_matches_jax(f, f_jax):
    assert_jvp_matches_jax(f, f_jax, random((2, 3, 4, 2)))


@pytest.mark.parametrize(("name", "method"), [("ResizeBilinear", "linear"),
                                              ("ResizeNearestNeighbor", "nearest")])
def test_resize_grad_jvp_matches_jax(name, method):
    x, dy = random((1, 3, 4, 2)), random((1, 5, 6, 2), 1)
    assert_jvp_matches_jax(lambda x, dy: tp.run_kernel(f"{name}Grad", [x, dy], dict(half_pixel_centers=True)),
                           lambda x, dy: jax.vjp(half_pixel((5, 6), method), x)[1](dy)[0], x, dy)


def test_crop_grad_image_jvp_matches_jax():
    image, grads = random((2, 3, 4, 2)), random((len(BOXES), *CROP, 2), 1)
    attrs = dict(image_shape=image.shape)
    assert_jvp_matches_jax(lambda g: tp.run_kernel("CropAndResizeGradImage", [g, BOXES, BOX_IND], attrs),
                           lambda g: jax.vjp(crop, image)[1](g)[0], grads)


def test_crop_refuses_a_tangent_on_its_boxes():
    image = random((2, 3, 4, 2))
    with pytest.raises(AutodiffError, match="crop_and_resize is not differentiable in its boxes"):
        tp.jvp(lambda b: tp.image.crop_and_resize(image, b, BOX_IND, CROP), (BOXES,), (np.ones_like(BOXES),))


@pytest.mark.parametrize("backend", ["numpy"], indirect=True)  # (the jax backend compiles each step)
def test_rules_match_transposed_gradient():
    x, dy = random((1, 3, 4, 2)), random((1, 2, 5, 2), 1)
    assert_rule_matches_transposed("FlipLeftRight", [x])
    for name in ("ResizeBilinear", "ResizeNearestNeighbor"):
        assert_rule_matches_transposed(name, [x], dict(size=(2, 5), align_corners=True))
        assert_rule_matches_transposed(f"{name}Grad", [x, dy], dict(align_corners=True))
    image = random((2, 3, 4, 2))
    assert_rule_matches_transposed("CropAndResize", [image, BOXES, BOX_IND],
                                   dict(crop_size=CROP, extrapolation_value=2.0), differentiable=(0,))
    assert_rule_matches_transposed("CropAndResizeGradImage", [random((len(BOXES), *CROP, 2)), BOXES, BOX_IND],
                                   dict(image_shape=image.shape), differentiable=(0,))


def test_hvp():
    resize = half_pixel((4, 6), "linear")
    assert_hvp_matches_jax(
        lambda x: tp.sum(tp.sin(tp.image.resize_bilinear(x, (4, 6), half_pixel_centers=True)) ** 2)
        + tp.sum(tp_crop(tp.image.flip_left_right(x)) ** 2),
        lambda x: jnp.sum(jnp.sin(resize(x)) ** 2) + jnp.sum(crop(x[:, :, ::-1]) ** 2),
        random((2, 3, 4, 2)))
