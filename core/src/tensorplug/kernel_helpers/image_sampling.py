"""The image family's arithmetic, written once for every backend (TF's semantics): where each
output pixel of a resize, a crop, a rotation or a projective transform reads the input, and the
gather-based sampling that reads it. Functions taking `xp` compute with that array namespace
(numpy, jax.numpy) only; ``scatter_add(target, index, values)`` is the backend's unbuffered
``target[index] += values`` returning the result. Non-max suppression runs on host values
(numpy): its output's length depends on them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Taps = list[tuple[np.ndarray, np.ndarray]]
ScatterAdd = Callable[[Any, tuple[Any, ...], Any], Any]


def _round_half_up(x: Any, xp: Any = np) -> Any:
    """JavaScript's Math.round: halves go up (numpy's round goes to even)."""
    return xp.floor(x + 0.5)


def resize_taps(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool,
                nearest: bool) -> Taps:
    """The (input index, weight) pairs each of `out_size` outputs reads along one axis of
    `in_size` (TF's ResizeBilinear / ResizeNearestNeighbor): two taps for bilinear, one for
    nearest; host arrays, since they follow the shapes and attributes only."""
    scale_in = in_size - 1 if align_corners and out_size > 1 else in_size
    scale_out = out_size - 1 if align_corners and out_size > 1 else out_size
    scale = scale_in / scale_out
    o = np.arange(out_size, dtype=np.float64)
    if nearest:
        src = scale * (o + 0.5) if half_pixel_centers else scale * o
        near = _round_half_up(src) if align_corners else np.floor(src)
        idx = np.clip(near, 0, in_size - 1).astype(np.int64)
        return [(idx, np.ones(out_size))]
    src = scale * (o + 0.5) - 0.5 if half_pixel_centers else scale * o
    floor = np.floor(src)
    lo = np.clip(floor, 0, in_size - 1).astype(np.int64)
    hi = np.clip(np.ceil(src), 0, in_size - 1).astype(np.int64)
    frac = src - floor
    return [(lo, 1.0 - frac), (hi, frac)]


def _along(w: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    return w.reshape([-1 if a == axis else 1 for a in range(ndim)])


def resize_axis(xp: Any, x: Any, axis: int, taps: Taps) -> Any:
    """x resized along `axis`: the weighted sum of its taps' gathers."""
    out = None
    for idx, w in taps:
        part = xp.take(x, idx, axis=axis) * _along(w, axis, x.ndim).astype(x.dtype)
        out = part if out is None else out + part
    return out


def resize_axis_adjoint(xp: Any, scatter_add: ScatterAdd, dy: Any, axis: int, taps: Taps,
                        in_size: int) -> Any:
    """The adjoint of ``resize_axis``: dy's entries sent back to the taps they were read from."""
    shape = list(dy.shape)
    shape[axis] = in_size
    out = xp.zeros(shape, dy.dtype)
    lead = (slice(None),) * axis
    for idx, w in taps:
        out = scatter_add(out, lead + (idx,), dy * _along(w, axis, dy.ndim).astype(dy.dtype))
    return out


def resize(xp: Any, images: Any, size: Sequence[int], align_corners: bool, half_pixel_centers: bool,
           nearest: bool) -> Any:
    """images (N, H, W, C) resized to `size` (TF's bilinear or nearest-neighbour rule)."""
    for axis, n in ((1, size[0]), (2, size[1])):
        images = resize_axis(xp, images, axis, resize_taps(images.shape[axis], n, align_corners,
                                                           half_pixel_centers, nearest))
    return images


def resize_grad(xp: Any, scatter_add: ScatterAdd, dy: Any, shape: Sequence[int], align_corners: bool,
                half_pixel_centers: bool, nearest: bool) -> Any:
    """The gradient of ``resize`` for images of `shape`: its adjoint applied to dy."""
    for axis in (2, 1):
        taps = resize_taps(shape[axis], dy.shape[axis], align_corners, half_pixel_centers, nearest)
        dy = resize_axis_adjoint(xp, scatter_add, dy, axis, taps, shape[axis])
    return dy


def resize_kernels(resize_kernel: Callable[[bool], Any],
                   grad_kernel: Callable[[bool], Any]) -> dict[str, Any]:
    """The resize family's kernel table from a backend's two factories, each called with
    `nearest`: ResizeBilinear and ResizeNearestNeighbor (``resize_kernel(False/True)``) and their
    Grad kernels (``grad_kernel(False/True)``)."""
    return {"ResizeBilinear": resize_kernel(False), "ResizeBilinearGrad": grad_kernel(False),
            "ResizeNearestNeighbor": resize_kernel(True), "ResizeNearestNeighborGrad": grad_kernel(True)}


# -- sampling at arbitrary points --------------------------------------------------------------
def _corner_reads(xp: Any, y: Any, x: Any, bilinear: bool) -> list[tuple[Any, Any, Any]]:
    """(row, col, weight) of each corner read for points (y, x): four for bilinear (floor and
    floor + 1 on each axis), one (rounded half up, weight 1) for nearest."""
    if not bilinear:
        return [(_round_half_up(y, xp), _round_half_up(x, xp), None)]
    y0, x0 = xp.floor(y), xp.floor(x)
    wy, wx = y - y0, x - x0
    return [(y0, x0, (1 - wy) * (1 - wx)), (y0, x0 + 1, (1 - wy) * wx),
            (y0 + 1, x0, wy * (1 - wx)), (y0 + 1, x0 + 1, wy * wx)]


def _read(xp: Any, image: Any, b: Any, row: Any, col: Any) -> tuple[Any, Any]:
    """image[b, row, col] (channels last) at integer-valued float coordinates, and whether each
    read lies inside the image (outside ones read a clipped pixel: mask them)."""
    height, width = image.shape[1], image.shape[2]
    inside = (row >= 0) & (row <= height - 1) & (col >= 0) & (col <= width - 1)  # (NaN: outside)
    r = xp.where(inside, row, 0).astype(np.int64)
    c = xp.where(inside, col, 0).astype(np.int64)
    return image[b, r, c], inside


def sample(xp: Any, image: Any, b: Any, y: Any, x: Any, bilinear: bool, fill: Any) -> Any:
    """image (N, H, W, C) read at points (y, x) of batch rows b (broadcast together), each
    corner outside the image reading `fill` (TF's Transform interpolation): shape
    broadcast(b, y, x) + (C,)."""
    out = None
    for row, col, w in _corner_reads(xp, y, x, bilinear):
        value, inside = _read(xp, image, b, row, col)
        value = xp.where(inside[..., None], value, xp.asarray(fill, image.dtype))
        part = value if w is None else value * w[..., None].astype(image.dtype)
        out = part if out is None else out + part
    return out


def sample_clamped(xp: Any, image: Any, b: Any, y: Any, x: Any, bilinear: bool) -> Any:
    """image read at points (y, x) inside [0, H - 1] x [0, W - 1] (CropAndResize's reads:
    bilinear between floor and ceil, nearest rounded half up)."""
    if not bilinear:
        return _read(xp, image, b, _round_half_up(y, xp), _round_half_up(x, xp))[0]
    y0, x0, y1, x1 = xp.floor(y), xp.floor(x), xp.ceil(y), xp.ceil(x)
    wy, wx = (y - y0)[..., None].astype(image.dtype), (x - x0)[..., None].astype(image.dtype)
    top = _read(xp, image, b, y0, x0)[0] * (1 - wx) + _read(xp, image, b, y0, x1)[0] * wx
    bottom = _read(xp, image, b, y1, x0)[0] * (1 - wx) + _read(xp, image, b, y1, x1)[0] * wx
    return top * (1 - wy) + bottom * wy


def sample_clamped_adjoint(xp: Any, scatter_add: ScatterAdd, grads: Any, shape: Sequence[int], b: Any,
                           y: Any, x: Any, bilinear: bool) -> Any:
    """The adjoint of ``sample_clamped`` in the image: grads (points + (C,)) summed onto the
    pixels each point read, for an image of `shape`."""
    out = xp.zeros(tuple(shape), grads.dtype)
    height, width = shape[1], shape[2]

    def put(acc: Any, row: Any, col: Any, w: Any) -> Any:  # (points inside the image: see crop_points)
        r = xp.clip(row, 0, height - 1).astype(np.int64)
        c = xp.clip(col, 0, width - 1).astype(np.int64)
        full = xp.broadcast_to(b, r.shape)
        return scatter_add(acc, (full, r, c), grads * w[..., None].astype(grads.dtype))

    if not bilinear:
        return put(out, _round_half_up(y, xp), _round_half_up(x, xp), xp.ones_like(y))
    y0, x0, y1, x1 = xp.floor(y), xp.floor(x), xp.ceil(y), xp.ceil(x)
    wy, wx = y - y0, x - x0
    for row, col, w in ((y0, x0, (1 - wy) * (1 - wx)), (y0, x1, (1 - wy) * wx),
                        (y1, x0, wy * (1 - wx)), (y1, x1, wy * wx)):
        out = put(out, row, col, w)
    return out


# -- CropAndResize -----------------------------------------------------------------------------
def crop_points(xp: Any, boxes: Any, box_ind: Any, batch: int, height: int, width: int,
                crop_size: Sequence[int]) -> tuple[Any, Any, Any, Any]:
    """Where CropAndResize reads, in the boxes' dtype: batch rows (boxes, 1, 1), y (boxes,
    crop_h, 1), x (boxes, 1, crop_w) in pixels, and which points are real reads (inside the
    image, of a box whose index is in [0, batch)): the others give the extrapolation value
    (TF.js's zeros for a box index out of range)."""
    crop_h, crop_w = crop_size

    def axis(lo: Any, hi: Any, length: int, n: int) -> Any:
        if n > 1:
            step = xp.arange(n, dtype=boxes.dtype)
            return lo[:, None] * (length - 1) + (hi - lo)[:, None] * step * (length - 1) / (n - 1)
        return (0.5 * (lo + hi) * (length - 1))[:, None]

    y = axis(boxes[:, 0], boxes[:, 2], height, crop_h)[:, :, None]
    x = axis(boxes[:, 1], boxes[:, 3], width, crop_w)[:, None, :]
    good_box = ((box_ind >= 0) & (box_ind < batch))[:, None, None]
    good_y, good_x = (y >= 0) & (y <= height - 1), (x >= 0) & (x <= width - 1)  # (NaN: outside)
    b = xp.where(good_box, box_ind[:, None, None], 0).astype(np.int64)
    inside = good_y & good_x & good_box
    return b, xp.where(good_y, y, 0), xp.where(good_x, x, 0), inside


def crop_and_resize(xp: Any, image: Any, boxes: Any, box_ind: Any, crop_size: Sequence[int], method: str,
                    extrapolation_value: float) -> Any:
    """TF's CropAndResize: (boxes, crop_h, crop_w, C) crops of image (N, H, W, C)."""
    n, height, width, channels = image.shape
    if boxes.shape[0] == 0 or n == 0 or channels == 0:
        return xp.full((boxes.shape[0], *crop_size, channels), extrapolation_value, image.dtype)
    b, y, x, inside = crop_points(xp, boxes.astype(image.dtype), box_ind, n, height, width, crop_size)
    values = sample_clamped(xp, image, b, y, x, method == "bilinear")
    fill = xp.where((box_ind >= 0) & (box_ind < n), extrapolation_value, 0)[:, None, None, None]
    return xp.where(inside[..., None], values, fill.astype(image.dtype))


def crop_and_resize_grad_image(xp: Any, scatter_add: ScatterAdd, grads: Any, boxes: Any, box_ind: Any,
                               image_shape: Sequence[int], method: str) -> Any:
    """The gradient of CropAndResize in the image (TF's CropAndResizeGradImage)."""
    n, height, width, _ = image_shape
    if grads.size == 0 or n == 0:
        return xp.zeros(tuple(image_shape), grads.dtype)
    b, y, x, inside = crop_points(xp, boxes.astype(grads.dtype), box_ind, n, height, width,
                                  grads.shape[1:3])
    masked = xp.where(inside[..., None], grads, xp.zeros((), grads.dtype))
    return sample_clamped_adjoint(xp, scatter_add, masked, image_shape, b, y, x, method == "bilinear")


# -- RotateWithOffset and Transform ------------------------------------------------------------
def image_center(center: float | Sequence[float], height: int, width: int) -> tuple[float, float]:
    """The rotation center (x, y) in pixels from TF.js's `center`: one fraction for both axes
    or (x, y) fractions of the width and height."""
    cx, cy = (center, center) if isinstance(center, (int, float)) else center
    return width * cx, height * cy


def rotate_points(shape: Sequence[int], radians: float,
                  center: float | Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Where RotateWithOffset reads, as host arrays (H, W): each output pixel rotated about the
    center and rounded half up (TF.js's rule)."""
    height, width = shape[1], shape[2]
    cx, cy = image_center(center, height, width)
    ys, xs = np.meshgrid(np.arange(height, dtype=np.float64), np.arange(width, dtype=np.float64),
                         indexing="ij")
    sin, cos = math.sin(radians), math.cos(radians)
    px = (xs - cx) * cos - (ys - cy) * sin + cx
    py = (xs - cx) * sin + (ys - cy) * cos + cy
    return _round_half_up(py), _round_half_up(px)


def channel_fill(fill_value: float | Sequence[float], channels: int) -> np.ndarray:
    """The fill value per channel: one number for all, or one per channel (TF.js: an RGB triple
    on four channels fills the alpha channel with 255)."""
    if isinstance(fill_value, (int, float)):
        return np.full(channels, float(fill_value))
    values = [float(v) for v in fill_value]
    if len(values) == 3 and channels == 4:
        values.append(255.0)
    return np.asarray(values)


def rotate_with_offset(xp: Any, image: Any, radians: float, fill_value: float | Sequence[float],
                       center: float | Sequence[float]) -> Any:
    """TF.js's RotateWithOffset: image (N, H, W, C) rotated by `radians` about `center`
    (nearest pixel), `fill_value` where the rotated point leaves the image."""
    n, height, width, channels = image.shape
    if image.size == 0:
        return image
    py, px = rotate_points(image.shape, radians, center)
    inside = (py >= 0) & (py < height) & (px >= 0) & (px < width)
    rows = np.where(inside, py, 0).astype(np.int64)
    cols = np.where(inside, px, 0).astype(np.int64)
    fill = channel_fill(fill_value, channels).astype(image.dtype)
    return xp.where(inside[None, :, :, None], image[:, rows, cols], fill)


def map_coord(xp: Any, coord: Any, length: int, mode: str) -> Any:
    """TF's Transform fill modes: where an input coordinate outside [0, length - 1] reads
    ('reflect' about the edges, 'wrap' around (TF's formula), 'nearest' edge, 'constant':
    unchanged, so that the read gives the fill value)."""
    if mode == "constant":
        return coord
    if mode == "nearest" or length <= 1:
        return xp.clip(coord, 0, length - 1)
    if mode == "reflect":
        size2 = 2 * length
        neg = xp.where(coord < size2, size2 * xp.trunc(-coord / size2) + coord, coord)
        neg = xp.where(neg < -length, neg + size2, -neg - 1)
        pos = coord - size2 * xp.trunc(coord / size2)
        pos = xp.where(pos >= length, size2 - pos - 1, pos)
    else:  # wrap
        size = length - 1
        neg = coord + length * (xp.trunc(-coord / size) + 1)
        pos = coord - length * xp.trunc(coord / size)
    mapped = xp.where(coord < 0, neg, xp.where(coord > length - 1, pos, coord))
    return xp.clip(mapped, 0, length - 1)


def transform(xp: Any, image: Any, transforms: Any, interpolation: str, fill_mode: str, fill_value: float,
              output_shape: Sequence[int] | None) -> Any:
    """TF's ImageProjectiveTransformV3: output pixel (x, y) of batch row b reads the input at
    ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, for the row's
    transform [a0, a1, a2, b0, b1, b2, c0, c1] (one row serves every image); k == 0 gives
    the fill value."""
    n, height, width, channels = image.shape
    out_h, out_w = output_shape if output_shape is not None else (height, width)
    if n == 0 or channels == 0 or out_h == 0 or out_w == 0 or height == 0 or width == 0:
        return xp.full((n, out_h, out_w, channels), fill_value, image.dtype)
    t = xp.broadcast_to(transforms, (n, 8))
    t = t.astype(np.float64) if t.dtype.itemsize < 4 else t
    ys = xp.arange(out_h, dtype=t.dtype)[None, :, None]
    xs = xp.arange(out_w, dtype=t.dtype)[None, None, :]

    def col(i: int) -> Any:
        return t[:, i][:, None, None]

    k = col(6) * xs + col(7) * ys + 1
    safe = xp.where(k == 0, 1, k)
    in_x = map_coord(xp, (col(0) * xs + col(1) * ys + col(2)) / safe, width, fill_mode)
    in_y = map_coord(xp, (col(3) * xs + col(4) * ys + col(5)) / safe, height, fill_mode)
    b = xp.arange(n)[:, None, None]
    values = sample(xp, image, b, in_y, in_x, interpolation == "bilinear", fill_value)
    return xp.where((k == 0)[..., None], xp.asarray(fill_value, image.dtype), values)


# -- non-max suppression (host values) ---------------------------------------------------------
def _iou(boxes: np.ndarray, i: int, others: np.ndarray) -> np.ndarray:
    """Intersection over union of box i with `others` (rows of boxes), corners in any order; 0
    where either box has no area (TF's rule)."""
    lo = np.minimum(boxes[:, :2], boxes[:, 2:])
    hi = np.maximum(boxes[:, :2], boxes[:, 2:])
    area = np.prod(hi - lo, axis=1)
    inter = np.prod(np.clip(np.minimum(hi[i], hi[others]) - np.maximum(lo[i], lo[others]), 0, None), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[i] + area[others] - inter)
    return np.where((area[i] <= 0) | (area[others] <= 0), 0.0, iou)


def non_max_suppression(boxes: np.ndarray, scores: np.ndarray, max_output_size: int, iou_threshold: float,
                        score_threshold: float, soft_nms_sigma: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """TF's greedy non-max suppression on host arrays: the indices (int64) of up to
    `max_output_size` boxes by descending score (ties: the lower index), each dropping the
    remaining boxes overlapping it with IoU >= `iou_threshold`; with `soft_nms_sigma` > 0 the
    others' scores decay by exp(-0.5 iou^2 / sigma), and boxes whose score falls to
    `score_threshold` or below leave. Returns (indices, their scores when selected)."""
    boxes = boxes.astype(np.float64)
    current = scores.astype(np.float64).copy()
    alive = current > score_threshold
    scale = -0.5 / soft_nms_sigma if soft_nms_sigma > 0 else 0.0
    picked: list[int] = []
    picked_scores: list[float] = []
    while len(picked) < max_output_size and alive.any():
        i = int(np.argmax(np.where(alive, current, -np.inf)))
        picked.append(i)
        picked_scores.append(float(current[i]))
        alive[i] = False
        others = np.flatnonzero(alive)
        if not others.size:
            break
        iou = _iou(boxes, i, others)
        current[others] *= np.where(iou <= iou_threshold, np.exp(scale * iou * iou), 0.0)
        alive[others] = (iou < iou_threshold) & (current[others] > score_threshold)
    return np.asarray(picked, np.int64), np.asarray(picked_scores, scores.dtype)


def nms_outputs(version: int, boxes: Any, scores: Any, attrs: Any) -> tuple[np.ndarray, ...]:
    """The outputs of NonMaxSuppressionV{version} (3, 4, 5) on host copies of boxes and scores:
    the indices; then V5's scores; then V4's and V5's count of valid ones (int64), the indices
    (and scores) zero-padded to max_output_size if ``pad_to_max_output_size``."""
    size = attrs["max_output_size"]
    picked, picked_scores = non_max_suppression(np.asarray(boxes), np.asarray(scores), size,
                                                attrs["iou_threshold"], attrs["score_threshold"],
                                                attrs.get("soft_nms_sigma", 0.0))
    valid = np.asarray(len(picked), np.int64)
    if attrs.get("pad_to_max_output_size") and len(picked) < size:
        extra = size - len(picked)
        picked = np.concatenate([picked, np.zeros(extra, np.int64)])
        picked_scores = np.concatenate([picked_scores, np.zeros(extra, picked_scores.dtype)])
    return {3: (picked,), 4: (picked, valid), 5: (picked, picked_scores, valid)}[version]
