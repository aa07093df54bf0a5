"""Reference values of the image family, written from TF's definitions pixel by pixel (plain
Python loops over the few pixels of small cases, independent of the kernels' vectorized
sampling): ResizeBilinear, ResizeNearestNeighbor and their Grad kernels, CropAndResize and
CropAndResizeGradImage, FlipLeftRight, RotateWithOffset and Transform (non-max suppression is in
``non_max_suppression``). Few cases: float64 and float32 (attribute variants on float64)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tensorplug.dtypes import float16, float32, float64, int32
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references._cover import with_every_dtype


def _js_round(v: float) -> int:
    return math.floor(v + 0.5)


# -- resizing ------------------------------------------------------------------------------------
def _source(o: int, n_in: int, n_out: int, align_corners: bool, half: bool, nearest: bool) -> float:
    ratio = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    if nearest:
        return ratio * (o + 0.5) if half else ratio * o
    return ratio * (o + 0.5) - 0.5 if half else ratio * o


def _nearest(o: int, n_in: int, n_out: int, align_corners: bool, half: bool) -> int:
    src = _source(o, n_in, n_out, align_corners, half, True)
    i = min(n_in - 1, _js_round(src) if align_corners else math.floor(src))
    return max(0, i) if half else i


def _bilinear(o: int, n_in: int, n_out: int, align_corners: bool, half: bool) -> list[tuple[int, float]]:
    src = _source(o, n_in, n_out, align_corners, half, False)
    lo, hi = max(0, math.floor(src)), min(n_in - 1, math.ceil(src))
    frac = src - math.floor(src)
    return [(lo, 1 - frac), (hi, frac)]


def _resize_reads(shape: Any, size: Any, nearest: bool, align_corners: bool,
                  half_pixel_centers: bool) -> Iterator[tuple[int, int, int, int, float]]:
    """(out row, out col, in row, in col, weight) of every read a resize makes."""
    for oy in range(size[0]):
        for ox in range(size[1]):
            if nearest:
                yield (oy, ox, _nearest(oy, shape[1], size[0], align_corners, half_pixel_centers),
                       _nearest(ox, shape[2], size[1], align_corners, half_pixel_centers), 1.0)
                continue
            for iy, wy in _bilinear(oy, shape[1], size[0], align_corners, half_pixel_centers):
                for ix, wx in _bilinear(ox, shape[2], size[1], align_corners, half_pixel_centers):
                    yield oy, ox, iy, ix, wy * wx


def _resize(nearest: bool) -> Callable[..., np.ndarray]:
    def compute(images: np.ndarray, size: Any, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
        out = np.zeros((images.shape[0], *size, images.shape[3]))
        reads = _resize_reads(images.shape, size, nearest, align_corners, half_pixel_centers)
        for oy, ox, iy, ix, w in reads:
            out[:, oy, ox] += w * images[:, iy, ix]
        return out
    return compute


def _resize_grad(nearest: bool) -> Callable[..., np.ndarray]:
    def compute(images: np.ndarray, dy: np.ndarray, align_corners: bool,
                half_pixel_centers: bool) -> np.ndarray:
        out = np.zeros(images.shape)
        for oy, ox, iy, ix, w in _resize_reads(images.shape, dy.shape[1:3], nearest, align_corners,
                                               half_pixel_centers):
            out[:, iy, ix] += w * dy[:, oy, ox]
        return out
    return compute


_RESIZES = [((1, 3, 4, 2), (5, 3), {}),
            ((2, 4, 3, 1), (2, 5), {"half_pixel_centers": True}),
            ((1, 3, 3, 2), (4, 2), {"align_corners": True}),
            ((1, 1, 2, 1), (3, 1), {"align_corners": True}),
            ((0, 2, 2, 1), (3, 2), {}), ((1, 1, 1, 1), (1, 1), {})]


def _resize_cases(spec: KernelSpec) -> list[Case]:
    grad = spec.name.endswith("Grad")
    dtypes = (float64, float32) if grad else (float64, float32, float16)
    if spec.name == "ResizeNearestNeighbor":
        dtypes = (float64, float32, int32)
    out = []
    for d in dtypes:
        for i, (shape, size, flags) in enumerate(_RESIZES if d is float64 else _RESIZES[:1]):
            x = sample(shape, d, key=(spec.name, i))
            if grad:
                dy = sample((shape[0], *size, shape[3]), d, key=(spec.name, i, "dy"))
                out.append(Case((x, dy), flags))
            else:
                out.append(Case((x,), {"size": size, **flags}))
    return with_every_dtype(spec, out)


def _resize_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((1, 2, 2, 1), float32)
    both = {"align_corners": True, "half_pixel_centers": True}
    if spec.name.endswith("Grad"):
        return [BadCase((x, sample((1, 3, 3, 2), float32)), error=ShapeError, why="dy of other channels"),
                BadCase((x, x), both, error=ShapeError, why="align_corners and half_pixel_centers")]
    return [BadCase((x[0],), {"size": (2, 2)}, error=ShapeError, why="a 3-d image"),
            BadCase((x,), {"size": (2, 2), **both}, error=ShapeError,
                    why="align_corners and half_pixel_centers")]


for _name, _near in (("ResizeBilinear", False), ("ResizeNearestNeighbor", True)):
    reference(_name, _resize_cases, _resize_bad)(_resize(_near))
    reference(f"{_name}Grad", _resize_cases, _resize_bad)(_resize_grad(_near))


# -- CropAndResize -------------------------------------------------------------------------------
_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.2, 0.1], [-0.3, 0.1, 1.2, 0.6], [0.5, 0.5, 0.5, 0.5],
                   [0.0, 0.0, 1.0, 1.0]], np.float32)
_BOX_IND = np.array([0, 1, 1, 0, 5], np.int32)  # (5: out of range, gives zeros as TF.js)


def _crop_axis(lo: float, hi: float, length: int, n: int) -> list[float]:
    if n > 1:
        return [lo * (length - 1) + (hi - lo) * i * (length - 1) / (n - 1) for i in range(n)]
    return [0.5 * (lo + hi) * (length - 1)]


def _crop_reads(image_shape: Any, boxes: np.ndarray, box_ind: np.ndarray, crop_size: Any,
                method: str) -> Iterator[tuple[int, int, int, int | None, int, int, float]]:
    """(box, row, col, batch row or None (extrapolated), in row, in col, weight) of each read."""
    n, height, width, _ = image_shape
    for k, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        b = int(box_ind[k])
        if not 0 <= b < n:
            continue
        for i, y in enumerate(_crop_axis(y1, y2, height, crop_size[0])):
            for j, x in enumerate(_crop_axis(x1, x2, width, crop_size[1])):
                if not (0 <= y <= height - 1 and 0 <= x <= width - 1):
                    yield k, i, j, None, 0, 0, 0.0
                elif method == "nearest":
                    yield k, i, j, b, _js_round(y), _js_round(x), 1.0
                else:
                    ly, lx = y - math.floor(y), x - math.floor(x)
                    for row, wy in ((math.floor(y), 1 - ly), (math.ceil(y), ly)):
                        for col, wx in ((math.floor(x), 1 - lx), (math.ceil(x), lx)):
                            yield k, i, j, b, row, col, wy * wx


def _crop_cases(spec: KernelSpec) -> list[Case]:
    out = []
    grad = spec.name == "CropAndResizeGradImage"
    for d in (float64, float32):
        variants = [((2, 4, 5, 2), (3, 4), "bilinear"), ((2, 3, 3, 1), (1, 2), "nearest")]
        for i, (shape, crop, method) in enumerate(variants if d is float64 else variants[:1]):
            if grad:
                grads = sample((len(_BOXES), *crop, shape[3]), d, key=(spec.name, i))
                out.append(Case((grads, _BOXES, _BOX_IND), {"image_shape": shape, "method": method}))
            else:
                attrs = {"crop_size": crop, "method": method, "extrapolation_value": 0.5 * i}
                out.append(Case((sample(shape, d, key=(spec.name, i)), _BOXES, _BOX_IND), attrs))
    # small enough for the gradient's needs to be traced (in float32, the boxes' dtype)
    if grad:
        out.append(Case((sample((5, 1, 2, 1), float32, key=spec.name), _BOXES, _BOX_IND),
                        {"image_shape": (1, 3, 3, 1)}))
    else:
        out.append(Case((sample((1, 3, 3, 1), float32, key=spec.name), _BOXES, _BOX_IND),
                        {"crop_size": (1, 2)}))
    image = sample((1, 1, 1, 1), float64, key=(spec.name, "one"))  # a size-1 image, no boxes
    for n in (1, 0):
        if grad:
            out.append(Case((image[:n], _BOXES[:n], _BOX_IND[:n]), {"image_shape": (1, 2, 2, 1)}))
        else:
            out.append(Case((image, _BOXES[:n], _BOX_IND[:n]), {"crop_size": (1, 1)}))
    return with_every_dtype(spec, out)


def _crop_bad(spec: KernelSpec) -> list[BadCase]:
    if spec.name == "CropAndResizeGradImage":
        grads = sample((5, 2, 2, 3), float32)
        return [BadCase((grads, _BOXES, _BOX_IND), {"image_shape": (1, 3, 3, 2)}, error=ShapeError,
                        why="grads of other channels than the image")]
    image = sample((1, 3, 3, 1), float32)
    return [BadCase((image, _BOXES[:, :3], _BOX_IND), {"crop_size": (2, 2)}, error=ShapeError,
                    why="boxes of 3 coordinates")]


@reference("CropAndResize", _crop_cases, _crop_bad)
def _crop_and_resize(image: np.ndarray, boxes: np.ndarray, box_ind: np.ndarray, crop_size: Any, method: str,
                     extrapolation_value: float) -> np.ndarray:
    out = np.zeros((len(boxes), *crop_size, image.shape[3]))
    for k, i, j, b, row, col, w in _crop_reads(image.shape, boxes, box_ind, crop_size, method):
        if b is None:
            out[k, i, j] = extrapolation_value
        else:
            out[k, i, j] += w * image[b, row, col]
    return out


@reference("CropAndResizeGradImage", _crop_cases, _crop_bad)
def _crop_and_resize_grad_image(grads: np.ndarray, boxes: np.ndarray, box_ind: np.ndarray, image_shape: Any,
                                method: str) -> np.ndarray:
    out = np.zeros(image_shape)
    for k, i, j, b, row, col, w in _crop_reads(image_shape, boxes, box_ind, grads.shape[1:3], method):
        if b is not None:
            out[b, row, col] += w * grads[k, i, j]
    return out


# -- FlipLeftRight, RotateWithOffset, Transform -------------------------------------------------
_EDGE_IMAGES = ((0, 2, 2, 1), (1, 1, 1, 1))  # an empty batch, a size-1 image


def _image_cases(spec: KernelSpec) -> list[Case]:
    out = [Case((sample((2, 3, 4, 2), d, key=spec.name),)) for d in (float64, float32, int32)]
    out += [Case((sample(s, float64, key=(spec.name, s)),)) for s in _EDGE_IMAGES]
    out += [Case((sample((1, 2, 3, 2), float64, key=(spec.name, 1)),))]  # (small: a gradient check)
    return with_every_dtype(spec, out)


@reference("FlipLeftRight", _image_cases)
def _flip_left_right(image: np.ndarray) -> np.ndarray:
    return np.stack([image[:, :, image.shape[2] - 1 - c] for c in range(image.shape[2])], axis=2)


def _rotate_cases(spec: KernelSpec) -> list[Case]:
    out = [Case((sample((2, 4, 5, 3), d, key=spec.name),), {"radians": 0.7}) for d in (float64, float32)]
    x = sample((1, 5, 4, 4), float64, key=(spec.name, 1))
    out += [Case((x,), {"radians": -2.0, "fill_value": (1.0, 2.0, 3.0), "center": (0.25, 0.6)}),
            Case((x,), {"radians": math.pi / 2, "fill_value": -1.0, "center": 0.4})]
    out += [Case((sample(s, float64, key=(spec.name, s)),), {"radians": 0.7}) for s in _EDGE_IMAGES]
    return with_every_dtype(spec, out)


def _rotate_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((sample((1, 3, 3, 2), float32),), {"radians": 1.0, "fill_value": (1.0, 2.0, 3.0)},
                    error=ShapeError, why="3 fill values for 2 channels")]


@reference("RotateWithOffset", _rotate_cases, _rotate_bad)
def _rotate_with_offset(image: np.ndarray, radians: float, fill_value: Any, center: Any) -> np.ndarray:
    n, height, width, channels = image.shape
    cx, cy = (center, center) if isinstance(center, float) else center
    cx, cy = width * cx, height * cy
    fills = [fill_value] * channels if isinstance(fill_value, float) else [
        fill_value[c] if c < len(fill_value) else 255.0 for c in range(channels)]  # (RGB on RGBA: opaque)
    out = np.empty(image.shape)
    for row in range(height):
        for col in range(width):
            x = _js_round((col - cx) * math.cos(radians) - (row - cy) * math.sin(radians) + cx)
            y = _js_round((col - cx) * math.sin(radians) + (row - cy) * math.cos(radians) + cy)
            inside = 0 <= x < width and 0 <= y < height
            out[:, row, col] = image[:, y, x] if inside else fills
    return out


def _map_coord(v: float, length: int, mode: str) -> float:
    """TF's map_coord for one coordinate (as tfjs-backend-cpu's Transform)."""
    if mode == "constant":
        return v
    if mode == "nearest" or length <= 1:
        return min(max(v, 0), length - 1)
    if mode == "reflect":
        if v < 0:
            sz2 = 2 * length
            if v < sz2:
                v = sz2 * math.trunc(-v / sz2) + v
            v = v + sz2 if v < -length else -v - 1
        elif v > length - 1:
            sz2 = 2 * length
            v -= sz2 * math.trunc(v / sz2)
            if v >= length:
                v = sz2 - v - 1
    elif v < 0:  # wrap
        v += length * (math.trunc(-v / (length - 1)) + 1)
    elif v > length - 1:
        v -= length * math.trunc(v / (length - 1))
    return min(max(v, 0), length - 1)


def _read(image: np.ndarray, b: int, y: int, x: int, fill: float) -> Any:
    inside = 0 <= y < image.shape[1] and 0 <= x < image.shape[2]
    return image[b, y, x] if inside else np.full(image.shape[3], fill)


_TRANSFORMS = np.array([[1.1, 0.3, -0.8, -0.2, 0.9, 0.7, 0.02, -0.03],
                        [-1.0, 0.0, 3.5, 0.1, 1.3, -1.6, 0.0, 0.0]])


def _transform_cases(spec: KernelSpec) -> list[Case]:
    out = []
    x = sample((2, 4, 5, 2), float32, key=spec.name)
    out.append(Case((x, _TRANSFORMS.astype(np.float32)), {"interpolation": "bilinear"}))
    x = sample((2, 4, 5, 2), float64, key=spec.name)
    for mode, interpolation in [(m, "bilinear") for m in ("constant", "reflect", "wrap", "nearest")] + [
            ("wrap", "nearest")]:
        out.append(Case((x, _TRANSFORMS * 2.5), {"interpolation": interpolation, "fill_mode": mode,
                                                  "fill_value": 0.25, "output_shape": (3, 6)}))
    out.append(Case((x, _TRANSFORMS[:1]), {"fill_value": -1.0}))
    out += [Case((sample(s, float64, key=(spec.name, s)), _TRANSFORMS[:1]), {}) for s in _EDGE_IMAGES]
    return with_every_dtype(spec, out)


def _transform_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((3, 2, 2, 1), float32)
    return [BadCase((x, _TRANSFORMS.astype(np.float32)), error=ShapeError, why="2 transforms for 3 images")]


@reference("Transform", _transform_cases, _transform_bad)
def _transform(image: np.ndarray, transforms: np.ndarray, interpolation: str, fill_mode: str,
               fill_value: float, output_shape: Any) -> np.ndarray:
    n, height, width, channels = image.shape
    out_h, out_w = output_shape or (height, width)
    out = np.full((n, out_h, out_w, channels), fill_value)
    for b in range(n):
        t = transforms[b if len(transforms) > 1 else 0]
        for oy in range(out_h):
            for ox in range(out_w):
                k = t[6] * ox + t[7] * oy + 1
                if k == 0:
                    continue
                x = _map_coord((t[0] * ox + t[1] * oy + t[2]) / k, width, fill_mode)
                y = _map_coord((t[3] * ox + t[4] * oy + t[5]) / k, height, fill_mode)
                if interpolation == "nearest":
                    out[b, oy, ox] = _read(image, b, _js_round(y), _js_round(x), fill_value)
                    continue
                y0, x0 = math.floor(y), math.floor(x)
                corners = [[_read(image, b, y0 + dy, x0 + dx, fill_value) for dx in (0, 1)] for dy in (0, 1)]
                top = (x0 + 1 - x) * corners[0][0] + (x - x0) * corners[0][1]
                bottom = (x0 + 1 - x) * corners[1][0] + (x - x0) * corners[1][1]
                out[b, oy, ox] = (y0 + 1 - y) * top + (y - y0) * bottom
    return out
