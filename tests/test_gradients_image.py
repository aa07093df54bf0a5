"""Gradients of the image family against finite differences on each backend: through the ops
(resize_bilinear, resize_nearest_neighbor, crop_and_resize in the image, flip_left_right) to
third order (the kernels are linear in the image, so cubes reach every Grad kernel's own
gradient), and through the Grad kernels themselves; boxes have no gradient (an AutodiffError)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")


def values(shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape)


FLAGS = [pytest.param({}, id="plain"), pytest.param({"align_corners": True}, id="align"),
         pytest.param({"half_pixel_centers": True}, id="half")]


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("op", ["resize_bilinear", "resize_nearest_neighbor"])
def test_resize_third_order(op, flags):
    resize = getattr(tp.image, op)
    check_gradients(lambda x: resize(x, (3, 4), **flags) ** 3, values((1, 2, 3, 2)), order=3)


@pytest.mark.parametrize("name", ["ResizeBilinearGrad", "ResizeNearestNeighborGrad"])
def test_grad_kernels_to_high_order_in_dy(name):
    images = tp.asarray(values((1, 3, 2, 1)))
    flags = {"align_corners": False, "half_pixel_centers": True}
    check_gradients(lambda dy: tp.run_kernel(name, [images, dy], flags) ** 3, values((1, 2, 4, 1), 1),
                    order=3)


def test_resize_grad_kernel_has_zero_gradient_in_images():
    dy = tp.asarray(values((1, 4, 4, 1), 2))
    g = tp.grad(lambda x: tp.sum(tp.run_kernel("ResizeBilinearGrad", [x, dy]) ** 2))(
        tp.asarray(values((1, 2, 2, 1))))
    assert not np.any(g.numpy())


BOXES = np.array([[0.1, 0.0, 0.9, 0.7], [1.0, 0.9, -0.2, 0.3]], np.float32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_image_third_order(method):
    def f(image):
        crops = tp.image.crop_and_resize(image, BOXES, [0, 1], (3, 2), method=method, extrapolation_value=0.3)
        return crops ** 3

    check_gradients(f, values((2, 3, 4, 1)), order=3)


def test_crop_and_resize_grad_image_in_grads():
    def f(grads):
        return tp.run_kernel("CropAndResizeGradImage", [grads, BOXES, np.array([1, 0], np.int32)],
                             {"image_shape": (2, 3, 3, 1)}) ** 3

    check_gradients(f, values((2, 2, 2, 1), 3), order=3)


def test_crop_and_resize_boxes_have_no_gradient():
    image = tp.asarray(values((1, 3, 3, 1)))
    with pytest.raises(tp.AutodiffError, match="boxes"):
        tp.grad(lambda b: tp.sum(tp.image.crop_and_resize(image, b, [0], (2, 2))))(tp.asarray(BOXES[:1]))


def test_flip_left_right_second_order():
    check_gradients(lambda x: tp.image.flip_left_right(x) ** 2 * np.arange(3.0), values((2, 2, 3, 1)),
                    order=2)
