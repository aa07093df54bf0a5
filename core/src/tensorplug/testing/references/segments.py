"""Reference values of the segment kernels: UnsortedSegmentSum/Max/Min (ids of 1-d and 2-d
shapes, negative and too-large ids dropped, empty segments holding the identity) and Bincount /
DenseBincount (weighted and not, values past size dropped, binary output), by Python loops over
the rows: a definition independent of any scatter."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.dtypes import float32, float64, int32, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, index_array, sample
from tensorplug.testing.references._base import other_dtypes, reference

# (data shape, ids, num_segments): ids have a prefix of data's shape
_SEGMENTS = [((5,), [0, 2, 0, 3, 2], 4), ((4, 3), [1, -1, 1, 5], 3), ((2, 2, 3), [[0, 1], [1, 1]], 2),
             ((0, 2), np.zeros(0, int), 2), ((3,), [0, 0, 0], 1)]


def _segment_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for j, (d, rows) in enumerate(((float64, None), (float32, 1), (int32, 2))):
        for i, (shape, ids, n) in enumerate(_SEGMENTS[:rows]):
            full = set(np.asarray(ids).reshape(-1).tolist()) >= set(range(n))
            out.append(Case((sample(shape, d, key=i), index_array(ids, spec, "segment_ids", j * 5 + i)),
                            {"num_segments": n}, label="" if full else "special"))  # (no gradient at +-inf)
    shape, ids, n = _SEGMENTS[0]  # (segment 1 empty)
    out += other_dtypes(spec, out, "data", lambda d: Case(
        (sample(shape, d, key=0), index_array(ids, spec, "segment_ids", 3)), {"num_segments": n}, "special"))
    return out + other_dtypes(spec, out, "segment_ids", lambda d: Case(  # (size 1, segment 1 empty)
        (sample((1,), float64, key=0), np.zeros(1, d.numpy)), {"num_segments": 2}, "special"))


def _segment_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((4, 3), float32)
    return [BadCase((x, np.zeros(3, np.int64)), {"num_segments": 2}, error=ShapeError,
                    why="segment_ids not a prefix of data's shape"),
            BadCase((x, np.zeros(4, np.int64)), {"num_segments": -1}, error=ShapeError,
                    why="a negative num_segments")]


def _segment(reduce: Any, empty: Any) -> Any:
    def compute(data: np.ndarray, segment_ids: np.ndarray, num_segments: int) -> np.ndarray:
        rows = data.reshape((segment_ids.size,) + data.shape[segment_ids.ndim:])
        out = []
        for s in range(num_segments):
            picked = rows[segment_ids.reshape(-1) == s]
            out.append(reduce(picked, axis=0) if picked.shape[0] else
                       np.full(rows.shape[1:], empty(data.dtype), data.dtype))
        return np.stack(out) if out else np.zeros((0,) + rows.shape[1:], data.dtype)
    return compute


def _lowest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf


def _highest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).max if dtype.kind in "iu" else np.inf


reference("UnsortedSegmentSum", _segment_cases, _segment_bad)(_segment(np.sum, lambda d: 0))
reference("UnsortedSegmentMax", _segment_cases, _segment_bad)(_segment(np.max, _lowest))
reference("UnsortedSegmentMin", _segment_cases, _segment_bad)(_segment(np.min, _highest))

# (x, weighted, size)
_COUNTS = [([1, 1, 3, 0, 7], True, 5), ([2, 2, 2], False, 3), (np.zeros(0, int), True, 2), ([0, 4], False, 0),
           ([[1, 2, 1], [0, 0, 5]], True, 4), ([[3], [3]], False, 4)]


def _count_cases(dense: bool) -> Any:
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        for j, (d, rows) in enumerate(((float64, None), (int64, 2))):
            for i, (x, weighted, size) in enumerate(_COUNTS[:rows]):
                xs = index_array(x, spec, "x", j * len(_COUNTS) + i)
                if xs.ndim == 2 and not dense:
                    continue
                w = sample(xs.shape, d, key=i) if weighted else np.zeros(0, d.numpy)
                for binary in ((False, True) if dense and j == 0 and i in (0, 4) else (False,)):
                    out.append(Case((xs, w), {"size": size, **({"binary_output": binary} if dense else {})}))
        # every other dtype: one size-1 case
        out += other_dtypes(spec, out, "x", lambda d: Case(
            (np.asarray([2], d.numpy), np.zeros(0, np.float32)), {"size": 5}))
        return out + other_dtypes(spec, out, "weights", lambda d: Case(
            (np.asarray([2], np.int64), sample((1,), d, key=0)), {"size": 5}))
    return cases


def _count_bad(spec: KernelSpec) -> list[BadCase]:
    x = np.array([0, 1, 2], np.int64)
    return [BadCase((x, sample((2,), float32)), {"size": 3}, error=ShapeError,
                    why="weights of another shape"),
            BadCase((x, np.zeros(0, np.float32)), {"size": -1}, error=ShapeError, why="a negative size"),
            BadCase((np.zeros((1, 1, 1), np.int64), np.zeros(0, np.float32)), {"size": 3}, error=ShapeError,
                    why="a 3-d x")]


def _counts(x: np.ndarray, weights: np.ndarray, size: int, binary_output: bool = False) -> np.ndarray:
    rows = np.atleast_2d(x)
    w = np.ones(rows.shape, weights.dtype) if not weights.size else np.atleast_2d(weights)
    out = np.zeros((rows.shape[0], size), weights.dtype)
    for r in range(rows.shape[0]):
        for v in range(size):
            hit = rows[r] == v
            out[r, v] = (1 if hit.any() else 0) if binary_output else w[r][hit].sum()
    return out if x.ndim == 2 else out[0]


reference("Bincount", _count_cases(False), _count_bad)(_counts)
reference("DenseBincount", _count_cases(True), _count_bad)(_counts)
