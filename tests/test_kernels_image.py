"""Image kernels on each backend against independent computations: resizing against np.interp
along each axis (TF's source coordinates) and jax.image.resize (half-pixel centers), the Grad
kernels against jax.vjp and as adjoints; CropAndResize and Transform against
jax.scipy.ndimage.map_coordinates at TF's sample points; FlipLeftRight, RotateWithOffset and
NonMaxSuppression against numpy formulas; the specs' errors; non-max suppression under tp.jit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: autouse)
from _kernel_helpers import assert_values, run, sample

FLAGS = [pytest.param({}, id="plain"), pytest.param({"align_corners": True}, id="align"),
         pytest.param({"half_pixel_centers": True}, id="half")]
SIZES = [pytest.param((2, 4, 5, 3), (7, 3), id="up-down"), pytest.param((1, 5, 3, 2), (2, 8), id="down-up"),
         pytest.param((2, 1, 3, 1), (3, 1), id="single")]


def _source(n_in, n_out, align_corners=False, half_pixel_centers=False):
    """TF's source coordinate of each output along one axis."""
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    o = np.arange(n_out)
    return scale * (o + 0.5) - 0.5 if half_pixel_centers else scale * o


def _interp(x, size, flags):
    """Bilinear resize as np.interp along height then width (np.interp holds the edge values
    outside [0, n - 1], as TF clamps its taps)."""
    for axis, n in ((1, size[0]), (2, size[1])):
        src = _source(x.shape[axis], n, **flags)
        x = np.apply_along_axis(lambda v, s=src: np.interp(s, np.arange(len(v)), v), axis, x)
    return x


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize(("shape", "size"), SIZES)
def test_resize_bilinear_is_interpolation_along_each_axis(shape, size, flags):
    x = sample(shape, tp.float64)
    assert_values(run("ResizeBilinear", {"images": x}, {"size": size, **flags}), _interp(x, size, flags))


METHODS = [("ResizeBilinear", "linear"), ("ResizeNearestNeighbor", "nearest")]


@pytest.mark.parametrize(("shape", "size"), SIZES)
@pytest.mark.parametrize(("name", "method"), METHODS)
def test_half_pixel_resize_matches_jax_image_resize(name, method, shape, size):
    x = sample(shape, tp.float64)
    want = jax.image.resize(x, (shape[0], *size, shape[3]), method, antialias=False)
    assert_values(run(name, {"images": x}, {"size": size, "half_pixel_centers": True}), np.asarray(want))


@pytest.mark.parametrize("flags", FLAGS)
def test_resize_nearest_reads_tf_source_pixels(flags):
    x = sample((1, 5, 4, 2), tp.float64)
    size = (3, 7)
    half, align = flags.get("half_pixel_centers", False), flags.get("align_corners", False)
    rows, cols = [], []
    for n_in, n_out, out in ((5, 3, rows), (4, 7, cols)):
        scale = (n_in - 1) / (n_out - 1) if align else n_in / n_out
        src = scale * (np.arange(n_out) + (0.5 if half else 0.0))
        out.extend(np.clip(np.floor(src + 0.5) if align else np.floor(src), 0, n_in - 1).astype(int))
    got = run("ResizeNearestNeighbor", {"images": x}, {"size": size, **flags})
    assert_values(got, x[:, rows][:, :, cols])


def test_resize_nearest_keeps_integers():
    x = sample((1, 2, 3, 1), tp.int32)
    got = run("ResizeNearestNeighbor", {"images": x}, {"size": (4, 6)})
    np.testing.assert_array_equal(got, np.repeat(np.repeat(x, 2, axis=1), 2, axis=2))


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("name", ["ResizeBilinear", "ResizeNearestNeighbor"])
def test_resize_grad_is_the_adjoint(name, flags):
    x, dy = sample((2, 4, 5, 2), tp.float64), sample((2, 3, 7, 2), tp.float64, seed=1)
    forward = run(name, {"images": x}, {"size": (3, 7), **flags})
    back = run(f"{name}Grad", {"images": x, "dy": dy}, flags)
    assert back.shape == x.shape
    np.testing.assert_allclose(np.sum(forward * dy), np.sum(x * back), rtol=1e-12)


@pytest.mark.parametrize(("name", "method"), METHODS)
def test_resize_grad_matches_jax_vjp(name, method):
    x, dy = sample((1, 3, 4, 2), tp.float64), sample((1, 6, 8, 2), tp.float64, seed=2)
    _, vjp = jax.vjp(lambda a: jax.image.resize(a, (1, 6, 8, 2), method, antialias=False), x)
    got = run(f"{name}Grad", {"images": x, "dy": dy}, {"half_pixel_centers": True})
    assert_values(got, np.asarray(vjp(dy)[0]))


@pytest.mark.parametrize("dtype", [tp.float32, tp.float16])
def test_resize_in_narrow_floats(dtype):
    x = sample((1, 3, 4, 2), dtype)
    got = run("ResizeBilinear", {"images": x}, {"size": (5, 2)})
    np.testing.assert_allclose(got, _interp(x.astype(np.float64), (5, 2), {}), rtol=2e-3, atol=2e-3)


# -- CropAndResize -----------------------------------------------------------------------------
BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.2, 0.1], [-0.3, 0.1, 1.2, 0.6],
                  [0.4, 0.5, 0.4, 0.5]], np.float32)
BOX_IND = np.array([0, 1, 1, 0], np.int32)


def _crop_points(shape, crop):
    """TF's sample points of each box: rows (boxes, crop_h), cols (boxes, crop_w)."""
    boxes = BOXES.astype(np.float64)
    out = []
    for lo, hi, n, length in ((boxes[:, 0], boxes[:, 2], crop[0], shape[1]),
                              (boxes[:, 1], boxes[:, 3], crop[1], shape[2])):
        if n > 1:
            out.append((lo[:, None] + (hi - lo)[:, None] * np.arange(n) / (n - 1)) * (length - 1))
        else:
            out.append((0.5 * (lo + hi) * (length - 1))[:, None])
    return out


@pytest.mark.parametrize("crop", [(3, 4), (1, 2)])
def test_crop_and_resize_matches_map_coordinates(crop):
    image = sample((2, 5, 6, 2), tp.float64)
    rows, cols = _crop_points(image.shape, crop)
    want = np.empty((len(BOXES), *crop, 2))
    for k in range(len(BOXES)):
        yy, xx = np.meshgrid(rows[k], cols[k], indexing="ij")
        for c in range(2):
            plane = jnp.asarray(image[BOX_IND[k], :, :, c])
            vals = np.asarray(jax.scipy.ndimage.map_coordinates(plane, [yy, xx], order=1, mode="constant"))
            inside = (yy >= 0) & (yy <= 4) & (xx >= 0) & (xx <= 5)
            want[k, :, :, c] = np.where(inside, vals, -7.0)
    got = run("CropAndResize", {"image": image, "boxes": BOXES, "box_ind": BOX_IND},
              {"crop_size": crop, "extrapolation_value": -7.0})
    assert_values(got, want)


def test_crop_of_the_whole_image_is_the_image():
    image = sample((1, 4, 5, 3), tp.float64)
    whole = np.array([[0, 0, 1, 1], [1, 1, 0, 0]], np.float32)
    for method in ("bilinear", "nearest"):
        got = run("CropAndResize", {"image": image, "boxes": whole, "box_ind": np.zeros(2, np.int32)},
                  {"crop_size": (4, 5), "method": method})
        assert_values(got[0], image[0])
        assert_values(got[1], image[0, ::-1, ::-1])


def test_crop_and_resize_grad_image_is_the_adjoint():
    image, grads = sample((2, 5, 6, 2), tp.float64), sample((4, 3, 4, 2), tp.float64, seed=3)
    for method in ("bilinear", "nearest"):
        forward = run("CropAndResize", {"image": image, "boxes": BOXES, "box_ind": BOX_IND},
                      {"crop_size": (3, 4), "method": method, "extrapolation_value": 0.0})
        back = run("CropAndResizeGradImage", {"grads": grads, "boxes": BOXES, "box_ind": BOX_IND},
                   {"image_shape": image.shape, "method": method})
        np.testing.assert_allclose(np.sum(forward * grads), np.sum(image * back), rtol=1e-12)


def test_crop_box_index_out_of_range_gives_zeros():
    image = sample((1, 3, 3, 1), tp.float64)
    got = run("CropAndResize", {"image": image, "boxes": BOXES[:2], "box_ind": np.array([0, 3], np.int32)},
              {"crop_size": (2, 2), "extrapolation_value": 5.0})
    assert not np.any(got[1])


# -- FlipLeftRight, RotateWithOffset, Transform ---------------------------------------------------
@pytest.mark.parametrize("dtype", [tp.float32, tp.int32])
def test_flip_left_right(dtype):
    x = sample((2, 3, 4, 2), dtype)
    np.testing.assert_array_equal(run("FlipLeftRight", {"image": x}), np.flip(x, axis=2))


def test_rotate_by_a_quarter_turn_about_the_middle_pixel_is_rot90():
    x = sample((2, 5, 5, 3), tp.float64)
    middle = 2 / 5  # the center pixel (2, 2), as a fraction of the size
    got = run("RotateWithOffset", {"image": x}, {"radians": math.pi / 2, "center": middle})
    assert_values(got, np.rot90(x, k=1, axes=(1, 2)))
    assert_values(run("RotateWithOffset", {"image": x}, {"radians": 2 * math.pi}), x)


def test_rotate_fills_what_leaves_the_image():
    x = sample((1, 4, 6, 4), tp.float64)
    got = run("RotateWithOffset", {"image": x}, {"radians": 0.6, "fill_value": (1.0, 2.0, 3.0)})
    cx, cy = 3.0, 2.0
    ys, xs = np.mgrid[0:4, 0:6]
    px = np.floor((xs - cx) * math.cos(0.6) - (ys - cy) * math.sin(0.6) + cx + 0.5).astype(int)
    py = np.floor((xs - cx) * math.sin(0.6) + (ys - cy) * math.cos(0.6) + cy + 0.5).astype(int)
    inside = (px >= 0) & (px < 6) & (py >= 0) & (py < 4)
    read = x[:, np.clip(py, 0, 3), np.clip(px, 0, 5)]
    want = np.where(inside[None, :, :, None], read, [1.0, 2.0, 3.0, 255.0])
    assert_values(got, want)


@pytest.mark.parametrize("fill_mode", ["constant", "nearest"])
def test_transform_bilinear_matches_map_coordinates(fill_mode):
    x = sample((2, 4, 5, 2), tp.float64)
    t = np.array([[1.2, 0.3, -1.1, -0.25, 0.9, 0.8, 0.0, 0.0],
                  [0.7, -0.2, 1.4, 0.3, 1.1, -0.6, 0.0, 0.0]])
    got = run("Transform", {"image": x, "transforms": t},
              {"interpolation": "bilinear", "fill_mode": fill_mode, "fill_value": 0.5,
               "output_shape": (3, 6)})
    ys, xs = np.mgrid[0:3, 0:6].astype(np.float64)
    want = np.empty((2, 3, 6, 2))
    for b in range(2):
        px, py = t[b, 0] * xs + t[b, 1] * ys + t[b, 2], t[b, 3] * xs + t[b, 4] * ys + t[b, 5]
        if fill_mode == "nearest":
            px, py = np.clip(px, 0, 4), np.clip(py, 0, 3)
        for c in range(2):
            plane = jnp.asarray(x[b, :, :, c])
            want[b, :, :, c] = jax.scipy.ndimage.map_coordinates(plane, [py, px], order=1, mode="constant",
                                                                 cval=0.5)
    assert_values(got, want)


def test_transform_integer_shift_and_projection_to_infinity():
    x = sample((1, 4, 5, 1), tp.float64)
    shift = np.array([[1, 0, 2, 0, 1, -1, 0, 0]], np.float64)  # reads (x + 2, y - 1)
    got = run("Transform", {"image": x, "transforms": shift}, {"fill_value": 9.0})
    want = np.full_like(x, 9.0)
    want[:, 1:, :3] = x[:, :3, 2:]
    assert_values(got, want)
    vanish = np.array([[1, 0, 0, 0, 1, 0, -1, 0]], np.float64)  # k = 1 - x: 0 on column 1
    got = run("Transform", {"image": x, "transforms": vanish}, {"fill_value": 9.0})
    assert np.all(got[:, :, 1] == 9.0) and np.all(got[:, :, 0] == x[:, :, 0])


# -- NonMaxSuppression ------------------------------------------------------------------------------
def _greedy(boxes, scores, limit, threshold):
    """Plain greedy NMS: by descending score, keep a box unless it overlaps a kept one >= threshold."""
    def iou(a, b):
        lo, hi = np.maximum(np.minimum(a[:2], a[2:]), np.minimum(b[:2], b[2:])), np.minimum(
            np.maximum(a[:2], a[2:]), np.maximum(b[:2], b[2:]))
        inter = np.prod(np.clip(hi - lo, 0, None))
        area = np.prod(np.abs(a[2:] - a[:2])) + np.prod(np.abs(b[2:] - b[:2]))
        return inter / (area - inter)
    kept = []
    for i in np.argsort(-scores, kind="stable"):
        if len(kept) < limit and all(iou(boxes[i], boxes[j]) < threshold for j in kept):
            kept.append(int(i))
    return kept


@pytest.mark.parametrize("threshold", [0.1, 0.5, 0.9])
def test_nms_is_greedy_suppression(threshold):
    rng = np.random.default_rng(4)
    corners = rng.uniform(0, 5, size=(30, 2))
    boxes = np.concatenate([corners, corners + rng.uniform(0.5, 2, size=(30, 2))], axis=1)
    scores = rng.permutation(30) / 30.0
    got = run("NonMaxSuppressionV3", {"boxes": boxes, "scores": scores},
              {"max_output_size": 12, "iou_threshold": threshold})
    np.testing.assert_array_equal(got, _greedy(boxes, scores, 12, threshold))


def test_soft_nms_decays_overlapping_scores():
    boxes = np.array([[0, 0, 2, 2], [0, 1, 2, 3], [5, 5, 6, 6]], np.float64)  # IoU(0, 1) = 1/3
    scores = np.array([0.9, 0.8, 0.5])
    attrs = {"max_output_size": 3, "iou_threshold": 0.9, "soft_nms_sigma": 0.5}
    indices, picked, valid = tp.run_kernel("NonMaxSuppressionV5", [boxes, scores], attrs)
    decayed = 0.8 * math.exp(-0.5 * (1 / 3) ** 2 / 0.5)
    np.testing.assert_array_equal(indices.numpy(), [0, 1, 2] if decayed > 0.5 else [0, 2, 1])
    np.testing.assert_allclose(picked.numpy(), [0.9, decayed, 0.5])
    assert valid.numpy() == 3 and valid.dtype == tp.int64


def test_nms_padded_counts_real_picks():
    boxes = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [3, 3, 4, 4]], np.float32)
    indices, valid = tp.run_kernel("NonMaxSuppressionV4", [boxes, np.array([0.2, 0.9, 0.1], np.float32)],
                                   {"max_output_size": 3, "pad_to_max_output_size": True})
    np.testing.assert_array_equal(indices.numpy(), [1, 2, 0])
    assert int(valid.numpy()) == 2 and indices.dtype == tp.int64


def test_nms_needs_values_under_jit(tp_backend):
    boxes, scores = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1]]), np.array([0.3, 0.6])
    f = tp.jit(lambda b, s: tp.run_kernel("NonMaxSuppressionV3", [b, s], {"max_output_size": 2}))
    either_order = (rf"backend '{tp_backend}'.*NonMaxSuppressionV3.*outside|"
                    rf"NonMaxSuppressionV3' on backend '{tp_backend}'.*outside")
    with pytest.raises(tp.TracedValueError, match=either_order):
        f(boxes, scores)  # (its output's length is the values': jax compiles fixed shapes, a plan too)


# -- the specs' errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "inputs", "attrs", "match"), [
    ("ResizeBilinear", [np.ones((2, 2, 1))], {"size": (2, 2)}, "4-d"),
    ("ResizeBilinear", [np.ones((1, 2, 2, 1))],
     {"size": (2, 2), "align_corners": True, "half_pixel_centers": True}, "cannot both be True"),
    ("ResizeBilinear", [np.ones((1, 0, 2, 1))], {"size": (2, 2)}, "no pixel"),
    ("CropAndResize", [np.ones((1, 2, 2, 1)), np.ones((2, 4), np.float32), np.zeros(3, np.int32)],
     {"crop_size": (2, 2)}, "box_ind"),
    ("Transform", [np.ones((2, 2, 2, 1)), np.ones((3, 8))], {}, "one row per image"),
    ("NonMaxSuppressionV3", [np.ones((3, 4)), np.ones(2)], {"max_output_size": 1}, r"scores \(num_boxes,\)"),
])
def test_spec_errors(name, inputs, attrs, match):
    with pytest.raises(tp.ShapeError, match=match):
        tp.run_kernel(name, inputs, attrs)


def test_image_ops_compile_under_jit(tp_backend):
    x = sample((1, 4, 5, 2), tp.float64)
    t = np.array([[1.1, 0.2, -0.4, 0.1, 0.9, 0.3, 0.0, 0.01]])

    def f(image, transforms):
        crops = tp.image.crop_and_resize(image, BOXES[:2], [0, 0], (2, 3))
        return (tp.image.resize_bilinear(image, (3, 7)), crops, tp.image.flip_left_right(image),
                tp.image.rotate_with_offset(image, 0.4), tp.image.transform(image, transforms, "bilinear"))

    for got, want in zip(tp.jit(f)(x, t), f(x, t)):
        assert_values(got.numpy(), want.numpy())
