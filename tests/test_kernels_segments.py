"""UnsortedSegmentSum/Max/Min against their definition (a loop over the segments: ids out of
range dropped, empty segments holding 0, -inf/inf or the integer limits, as jax.ops gives),
Bincount and DenseBincount against np.bincount row by row."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, raises_for, run, sample

# (data shape, ids, num_segments): ids have a prefix of data's shape
SEGMENTS = [((6,), [0, 2, 0, 3, 2, 1], 4), ((4, 3), [1, -1, 1, 7], 3), ((2, 2, 3), [[0, 1], [1, 1]], 2),
            ((0, 2), np.zeros(0, int), 2), ((3,), [0, 0, 0], 0)]
KERNELS = {"UnsortedSegmentSum": (np.sum, 0, 0), "UnsortedSegmentMax": (np.max, -np.inf, "min"),
           "UnsortedSegmentMin": (np.min, np.inf, "max")}


def _empty(kernel, dtype):
    _, float_fill, int_fill = KERNELS[kernel]
    if dtype.is_integer and int_fill:
        return getattr(np.iinfo(dtype.numpy), int_fill)
    return float_fill


@pytest.mark.parametrize(("shape", "ids", "n"), SEGMENTS, ids=str)
@pytest.mark.parametrize("dtype", (tp.float32, tp.float64, tp.int32, tp.uint8), ids=lambda d: d.name)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_unsorted_segment_reductions(kernel, dtype, shape, ids, n):
    data = sample(shape, dtype, 0, 9)
    ids = np.asarray(ids, np.int64 if np.min(ids, initial=0) < 0 else np.int32)
    rows = data.reshape((ids.size,) + shape[ids.ndim:])
    want = np.full((n,) + shape[ids.ndim:], _empty(kernel, dtype), dtype.numpy)
    for s in range(n):
        picked = rows[ids.reshape(-1) == s]
        if picked.shape[0]:
            want[s] = KERNELS[kernel][0](picked, axis=0)
    got = run(kernel, {"data": data, "segment_ids": ids}, {"num_segments": n})
    assert_values(got, want, dtype)


def test_segment_errors_from_the_spec():
    ids = np.zeros(2, int)
    raises_for("UnsortedSegmentSum", tp.ShapeError, {"data": np.zeros((3, 2)), "segment_ids": ids},
               {"num_segments": 1}, "segment_ids of shape (2,)", "(3, 2)")
    raises_for("UnsortedSegmentMax", tp.DTypeError, {"data": np.zeros(2, bool), "segment_ids": ids},
               {"num_segments": 1}, "data")


# (x, weighted, size)
COUNTS = [([1, 1, 3, 0, 7], True, 5), ([2, 2, 2], False, 3), (np.zeros(0, int), True, 2), ([0, 4], False, 0),
          ([[1, 2, 1], [0, 0, 5]], True, 4), ([[3], [3]], False, 4)]


def _bincount(x, w, size, binary=False):
    rows = np.atleast_2d(x)
    ws = np.atleast_2d(w) if w.size else np.ones(rows.shape, w.dtype)
    out = np.stack([np.bincount(r[r < size], weights=wr[r < size], minlength=size)[:size] for r, wr in
                    zip(rows, ws)]) if rows.shape[0] else np.zeros((0, size))
    out = (out > 0) if binary else out
    return out if x.ndim == 2 else out[0]


@pytest.mark.parametrize(("x", "weighted", "size"), COUNTS, ids=str)
@pytest.mark.parametrize("dtype", (tp.float32, tp.int64), ids=lambda d: d.name)
def test_bincounts(dtype, x, weighted, size):
    x = np.asarray(x, np.int32)
    w = sample(x.shape, dtype, 0, 5) if weighted else np.zeros(0, dtype.numpy)
    want = _bincount(x, w, size)
    if x.ndim == 1:
        assert_values(run("Bincount", {"x": x, "weights": w}, {"size": size}), want, dtype)
    assert_values(run("DenseBincount", {"x": x, "weights": w}, {"size": size}), want, dtype)
    got = run("DenseBincount", {"x": x, "weights": w}, {"size": size, "binary_output": True})
    assert_values(got, _bincount(x, w, size, binary=True), dtype)


def test_bincount_errors_from_the_spec():
    raises_for("Bincount", tp.ShapeError, {"x": np.zeros((2, 2), int), "weights": np.zeros(0)}, {"size": 2},
               "x must be 1-d")
    raises_for("DenseBincount", tp.ShapeError, {"x": np.zeros(3, int), "weights": np.zeros(2)}, {"size": 2},
               "weights of shape (2,)")
