"""Reference values of NonMaxSuppressionV3/V4/V5 (the image family's box selection): TF's own
lazy priority-queue algorithm, box by box (the kernels update every score eagerly instead), on
hand-made boxes (float64 and float32, one case in each half float; none and one box) and sampled
ones with attribute variants (float64)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import float32, float64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references._cover import with_every_dtype


def _iou(boxes: np.ndarray, i: int, j: int) -> float:
    a, b = boxes[i], boxes[j]
    ya0, xa0, ya1, xa1 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    yb0, xb0, yb1, xb1 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    area_a, area_b = (ya1 - ya0) * (xa1 - xa0), (yb1 - yb0) * (xb1 - xb0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ya1, yb1) - max(ya0, yb0), 0.0) * max(min(xa1, xb1) - max(xa0, xb0), 0.0)
    return inter / (area_a + area_b - inter)


def _nms(boxes: np.ndarray, scores: np.ndarray, max_output_size: int, iou_threshold: float,
         score_threshold: float, sigma: float) -> tuple[list[int], list[float]]:
    """TF's algorithm: candidates popped by score (ties: lower index), compared lazily with the
    boxes selected since their score was last updated, put back while their score decays."""
    queue: list[list[Any]] = [[float(s), i, 0] for i, s in enumerate(scores) if s > score_threshold]
    scale = -0.5 / sigma if sigma > 0 else 0.0
    picked: list[int] = []
    picked_scores: list[float] = []
    while len(picked) < max_output_size and queue:
        queue.sort(key=lambda c: (c[0], -c[1]))
        candidate = queue.pop()
        original, index, begin = candidate
        ignore = False
        for j in range(len(picked) - 1, begin - 1, -1):
            iou = _iou(boxes, index, picked[j])
            if iou >= iou_threshold:
                ignore = True
                break
            candidate[0] *= math.exp(scale * iou * iou) if iou <= iou_threshold else 0.0
            if candidate[0] <= score_threshold:
                break
        candidate[2] = len(picked)
        if not ignore:
            if candidate[0] == original:
                picked.append(index)
                picked_scores.append(candidate[0])
            elif candidate[0] > score_threshold:
                queue.append(candidate)
    return picked, picked_scores


_NMS_BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [1, 10.1, 0, 11.1],
                       [0, 100, 1, 101], [0.5, 0.5, 0.5, 0.9], [0.2, 0.2, 0.7, 0.8]], np.float64)
_NMS_SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.8, 0.42])


def _nms_cases(spec: KernelSpec) -> list[Case]:
    out = []
    soft = spec.name.endswith("V5")
    for d in (float64, float32):
        base = {"max_output_size": 4, "iou_threshold": 0.5}
        out.append(Case((_NMS_BOXES.astype(d.numpy), _NMS_SCORES.astype(d.numpy)), base))
    boxes = sample((12, 4), float64, Domain(0.0, 4.0), key=spec.name)
    scores = sample((12,), float64, Domain(0.0, 1.0), key=(spec.name, "scores"))
    for attrs in ({"max_output_size": 12, "iou_threshold": 0.3, "score_threshold": 0.2},
                  {"max_output_size": 10, "iou_threshold": 0.0}, {"max_output_size": 0}):
        if soft:
            attrs = {**attrs, "soft_nms_sigma": 0.5}
        if not spec.name.endswith("V3"):
            attrs = {**attrs, "pad_to_max_output_size": True}
        out.append(Case((boxes, scores), attrs))
    base = {"max_output_size": 2, "iou_threshold": 0.5}
    out += [Case((_NMS_BOXES[:n], _NMS_SCORES[:n]), base) for n in (0, 1)]  # no box, one box
    return with_every_dtype(spec, out)


def _nms_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((_NMS_BOXES[:, :3], _NMS_SCORES), {"max_output_size": 2}, error=ShapeError,
                    why="boxes of 3 coordinates")]


def _nms_reference(version: int) -> Callable[..., Any]:
    def compute(boxes: np.ndarray, scores: np.ndarray, max_output_size: int, iou_threshold: float,
                score_threshold: float, soft_nms_sigma: float = 0.0,
                pad_to_max_output_size: bool = False) -> Any:
        picked, picked_scores = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
                                     soft_nms_sigma)
        valid = np.asarray(len(picked))
        if pad_to_max_output_size:
            picked_scores += [0.0] * (max_output_size - len(picked))
            picked += [0] * (max_output_size - len(picked))
        indices = np.asarray(picked, np.int64)
        return {3: indices, 4: (indices, valid), 5: (indices, np.asarray(picked_scores), valid)}[version]
    return compute


for _v in (3, 4, 5):
    reference(f"NonMaxSuppressionV{_v}", _nms_cases, _nms_bad)(_nms_reference(_v))
