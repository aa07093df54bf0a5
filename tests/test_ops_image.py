"""tp.image's ops: argument conversion (one 3-d image, integer images, lists), which kernel and
attributes each op picks, TF.js's clamping of max_output_size, and the errors that name the op
and the fix."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import message


def images(shape=(2, 3, 4, 2), seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape)


def test_resize_takes_one_image_and_matches_the_batched_call():
    x = images()
    one = tp.image.resize_bilinear(x[0], (5, 3), half_pixel_centers=True)
    both = tp.image.resize_bilinear(x, (5, 3), half_pixel_centers=True)
    assert one.shape == (5, 3, 2)
    np.testing.assert_allclose(one.numpy(), both.numpy()[0])


@pytest.mark.parametrize(("method", "kernel_op"), [("bilinear", "resize_bilinear"),
                                                    ("nearest", "resize_nearest_neighbor")])
def test_resize_is_the_half_pixel_kernel(method, kernel_op):
    x = images()
    want = getattr(tp.image, kernel_op)(x, (6, 7), half_pixel_centers=True)
    np.testing.assert_array_equal(tp.image.resize(x, (6, 7), method=method).numpy(), want.numpy())


def test_integer_images():
    x = np.arange(12, dtype=np.int32).reshape(1, 2, 3, 2)
    near = tp.image.resize_nearest_neighbor(x, (4, 6))
    assert near.dtype == tp.int32
    bilinear = tp.image.resize_bilinear(x, (2, 3))
    assert bilinear.dtype == tp.float32
    np.testing.assert_allclose(bilinear.numpy(), x)


def test_crop_and_resize_takes_lists():
    x = images((1, 3, 3, 1))
    out = tp.image.crop_and_resize(x, [[0.0, 0.0, 1.0, 1.0]], [0], (3, 3))
    np.testing.assert_allclose(out.numpy(), x)
    assert out.dtype == tp.float64


@pytest.mark.parametrize("dtype", [tp.uint8, tp.int64, tp.uint64])
def test_crop_and_resize_box_ind_of_any_integer_dtype(dtype):
    """The kernels take int32 box_ind (TF's); the op casts, and an index past int32 still reads
    nothing (zeros), as one in range reads its image."""
    x = images((2, 3, 3, 1))
    boxes = [[0.0, 0.0, 1.0, 1.0]] * 3
    big = 2**40 if dtype is not tp.uint8 else 200
    out = tp.image.crop_and_resize(x, boxes, tp.asarray(np.array([1, big, 0]), dtype=dtype), (3, 3))
    np.testing.assert_allclose(out.numpy(), np.stack([x[1], np.zeros_like(x[0]), x[0]]))
    neg = tp.image.crop_and_resize(x, boxes[:1], tp.asarray(np.array([-(2**40)]), dtype=tp.int64), (3, 3))
    np.testing.assert_array_equal(neg.numpy(), 0)


def test_rotate_and_transform_ops():
    x = images((1, 3, 3, 2))
    np.testing.assert_allclose(tp.image.rotate_with_offset(x, 0.0).numpy(), x)
    np.testing.assert_allclose(tp.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]]).numpy(), x)
    np.testing.assert_allclose(tp.image.flip_left_right(x).numpy(), x[:, :, ::-1])
    out = tp.image.transform(x, [[1, 0, 0, 0, 1, 0, 0, 0]], output_shape=(2, 5), fill_value=4.0)
    assert out.shape == (1, 2, 5, 2) and np.all(out.numpy()[:, :, 3:] == 4.0)


BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 10, 1, 11], [0, 20, 1, 21]], np.float32)
SCORES = np.array([0.9, 0.8, 0.7, 0.1], np.float32)


def test_non_max_suppression_ops():
    np.testing.assert_array_equal(tp.image.non_max_suppression(BOXES, SCORES, 10).numpy(), [0, 2, 3])
    np.testing.assert_array_equal(tp.image.non_max_suppression(BOXES, SCORES, 10, 0.9).numpy(), [0, 1, 2, 3])
    above = tp.image.non_max_suppression(BOXES, SCORES, 2, score_threshold=0.75)
    np.testing.assert_array_equal(above.numpy(), [0])
    indices, valid = tp.image.non_max_suppression_padded(BOXES, SCORES, 10, pad_to_max_output_size=True)
    np.testing.assert_array_equal(indices.numpy(), [0, 2, 3, 0])  # (padded to min(10, 4), as TF.js)
    assert int(valid.numpy()) == 3
    indices, scores = tp.image.non_max_suppression_with_scores(BOXES, SCORES, 10, iou_threshold=1.0,
                                                               soft_nms_sigma=0.5)
    decayed = 0.8 * math.exp(-(0.9 / 1.1) ** 2)  # (IoU 0.9 / 1.1 with box 0; below 0.7 now)
    np.testing.assert_array_equal(indices.numpy(), [0, 2, 1, 3])
    np.testing.assert_allclose(scores.numpy(), [0.9, 0.7, decayed, 0.1], rtol=1e-6)
    assert indices.dtype == tp.int64 and scores.dtype == tp.float32


@pytest.mark.parametrize(("call", "error", "fragments"), [
    (lambda: tp.image.resize(images(), (2, 2), method="cubic"), tp.ArgumentError,
     ("resize", "method", "'nearest'")),
    (lambda: tp.image.resize_bilinear(images(), (0, 2)), tp.ShapeError, ("resize_bilinear", "size", ">= 1")),
    (lambda: tp.image.resize_bilinear(images(), (2, 2), True, True), tp.ShapeError, ("cannot both be True",)),
    (lambda: tp.image.resize_bilinear(np.ones((2, 2)), (2, 2)), tp.ShapeError, ("resize_bilinear", "4-d")),
    (lambda: tp.image.resize_nearest_neighbor(np.ones((1, 2, 2, 1), bool), (2, 2)), tp.DTypeError,
     ("resize_nearest_neighbor", "real numbers")),
    (lambda: tp.image.crop_and_resize(images(), BOXES, [0, 0], (2, 2)), tp.ShapeError,
     ("crop_and_resize", "box_ind")),
    (lambda: tp.image.crop_and_resize(images(), BOXES[:1], [0.5], (2, 2)), tp.DTypeError,
     ("box_ind", "integers")),
    (lambda: tp.image.rotate_with_offset(images(), 1.0, fill_value=(1, 2, 3)), tp.ShapeError,
     ("fill_value",)),
    (lambda: tp.image.rotate_with_offset(images(), math.inf), tp.ShapeError, ("radians", "finite")),
    (lambda: tp.image.transform(images(), np.ones((3, 8))), tp.ShapeError, ("transform", "(2, 8)")),
    (lambda: tp.image.transform(images(), np.ones((1, 8)), fill_mode="mirror"), tp.ArgumentError,
     ("fill_mode",)),
    (lambda: tp.image.non_max_suppression(BOXES, SCORES, 2, iou_threshold=1.5), tp.ShapeError,
     ("non_max_suppression", "[0, 1]")),
    (lambda: tp.image.non_max_suppression(BOXES, SCORES[:2], 2), tp.ShapeError, ("scores",)),
    (lambda: tp.image.non_max_suppression(BOXES, SCORES, -1), tp.ShapeError, ("max_output_size", ">= 0")),
    (lambda: tp.image.non_max_suppression_with_scores(BOXES, SCORES, 2, soft_nms_sigma=-1.0), tp.ShapeError,
     ("soft_nms_sigma",)),
])
def test_errors_name_the_op_and_the_fix(call, error, fragments):
    with pytest.raises(error, match=message(*fragments)):
        call()
