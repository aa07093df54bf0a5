"""The sparse kernels against TF's definitions written as loops: SparseSegmentSum/Mean,
SparseToDense, SparseReshape (np.ravel_multi_index / np.unravel_index), SparseFillEmptyRows;
the value-dependent ones refuse to run inside tp.jit on jax."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, raises_for, run, sample

# (data shape, indices, segment_ids, num_segments)
SEGMENTS = [((4, 2), [0, 1, 3], [0, 0, 2], None), ((5,), [4, 4, 0, 2], [0, 1, 1, 3], 5),
            ((3, 2), np.zeros(0, int), np.zeros(0, int), None), ((3, 2), [2, 0], [0, 0], 3)]


@pytest.mark.parametrize(("shape", "indices", "ids", "n"), SEGMENTS, ids=str)
@pytest.mark.parametrize("mean", (False, True), ids=("sum", "mean"))
@pytest.mark.parametrize("dtype", (tp.float32, tp.float64), ids=lambda d: d.name)
def test_sparse_segments(dtype, mean, shape, indices, ids, n):
    data = sample(shape, dtype)
    idx, seg = np.asarray(indices, np.int64), np.asarray(ids, np.int32)
    rows = (int(seg[-1]) + 1 if seg.size else 0) if n is None else n
    want = np.zeros((rows,) + shape[1:])
    for s in range(rows):
        picked = data[idx[seg == s]].astype(np.float64)
        if picked.shape[0]:
            want[s] = picked.mean(axis=0) if mean else picked.sum(axis=0)
    got = run("SparseSegmentMean" if mean else "SparseSegmentSum",
              {"data": data, "indices": idx, "segment_ids": seg}, {"num_segments": n})
    assert_values(got, want, dtype)


TO_DENSE = [([[0, 1], [2, 0], [1, 1]], (3,), (3, 2)), ([3, 0], (2,), (5,)), (2, (), (4,)),
            ([[1, 0, 1]], (), (2, 2, 2)), (np.zeros((0, 2), int), (0,), (2, 3))]


@pytest.mark.parametrize(("indices", "values_shape", "shape"), TO_DENSE, ids=str)
@pytest.mark.parametrize("dtype", (tp.float32, tp.int64, tp.bool), ids=lambda d: d.name)
def test_sparse_to_dense(dtype, indices, values_shape, shape):
    idx = np.asarray(indices, np.int32)
    values, default = sample(values_shape, dtype), sample((), dtype, seed=3)
    want = np.full(shape, default)
    rows = idx.reshape(-1, len(shape))
    for row, v in zip(rows, np.broadcast_to(values, rows.shape[:1])):
        want[tuple(row)] = v
    got = run("SparseToDense", {"sparse_indices": idx, "sparse_values": values, "default_value": default},
              {"output_shape": shape})
    assert_values(got, want, dtype)


RESHAPES = [([[0, 1], [1, 2], [1, 0]], [2, 3], [3, -1], [3, 2]), ([[0, 1, 1]], [2, 2, 2], [8], [8]),
            ([[5]], [6], [2, 1, 3], [2, 1, 3]), (np.zeros((0, 2), int), [0, 3], [3, -1], [3, 0])]


@pytest.mark.parametrize(("indices", "shape", "new", "want_shape"), RESHAPES, ids=str)
def test_sparse_reshape(indices, shape, new, want_shape):
    idx = np.asarray(indices, np.int64).reshape(-1, len(shape))
    out_idx, out_shape = tp.run_kernel("SparseReshape", [idx, np.array(shape), np.array(new)])
    linear = np.ravel_multi_index(tuple(idx.T), shape) if idx.size else np.zeros(0, int)
    want = np.stack(np.unravel_index(linear, want_shape), axis=-1) if idx.size else np.zeros((0, len(new)))
    np.testing.assert_array_equal(out_shape.numpy(), want_shape)
    np.testing.assert_array_equal(out_idx.numpy(), want.reshape(-1, len(new)))
    assert out_idx.dtype == out_shape.dtype == tp.int64


def test_sparse_reshape_refuses_other_sizes():
    idx = np.array([[0, 1]], np.int64)
    with pytest.raises(tp.ShapeError, match="sizes must multiply to 6"):
        tp.run_kernel("SparseReshape", [idx, np.array([2, 3]), np.array([4, -1])])
    with pytest.raises(tp.ShapeError, match="one -1"):
        tp.run_kernel("SparseReshape", [idx, np.array([2, 3]), np.array([-1, -1])])


SHAPE, ZERO = np.array([2, 2]), np.float64(0)
FILLS = [([[3, 1], [0, 2], [3, 0]], [5, 4]), ([[1], [1]], [2]), (np.zeros((0, 2), int), [2, 2]),
         ([[0, 0], [1, 1]], [2, 2])]


@pytest.mark.parametrize(("indices", "dense_shape"), FILLS, ids=str)
def test_sparse_fill_empty_rows(indices, dense_shape):
    idx = np.asarray(indices, np.int64).reshape(-1, len(dense_shape))
    values = sample(idx.shape[:1], tp.float32)
    out = tp.run_kernel("SparseFillEmptyRows", [idx, values, np.array(dense_shape), np.float32(-1)])
    want_idx, want_val, where = [], [], np.zeros(len(idx), int)
    for r in range(dense_shape[0]):
        mine = np.flatnonzero(idx[:, 0] == r)
        if not mine.size:
            want_idx.append([r] + [0] * (len(dense_shape) - 1))
            want_val.append(-1)
        for i in mine:
            where[i] = len(want_idx)
            want_idx.append(idx[i].tolist())
            want_val.append(values[i])
    np.testing.assert_array_equal(out[0].numpy(), np.reshape(want_idx, (-1, len(dense_shape))))
    np.testing.assert_array_equal(out[1].numpy(), np.asarray(want_val, np.float32))
    np.testing.assert_array_equal(out[2].numpy(), np.bincount(idx[:, 0], minlength=dense_shape[0]) == 0)
    np.testing.assert_array_equal(out[3].numpy(), where)


def test_sparse_index_errors():
    raises_for("SparseToDense", tp.IndexOutOfRangeError, {"sparse_indices": np.array([[0, 2]]),
               "sparse_values": np.ones(1), "default_value": np.float64(0)}, {"output_shape": (2, 2)},
               "index [0, 2]")
    with pytest.raises(tp.IndexOutOfRangeError, match="index \\[3, 0\\]"):
        tp.run_kernel("SparseFillEmptyRows", [np.array([[3, 0]]), np.ones(1), SHAPE, ZERO])
    with pytest.raises(tp.IndexOutOfRangeError, match="index 3 is out of range"):
        tp.run_kernel("SparseSegmentSum", [np.ones((3, 2)), np.array([3]), np.array([0])])


def test_value_dependent_lengths_cannot_be_compiled(tp_backend):
    f = tp.jit(lambda d, i, s: tp.run_kernel("SparseSegmentSum", [d, i, s]))
    g = tp.jit(lambda d, i, s: tp.run_kernel("SparseSegmentSum", [d, i, s], {"num_segments": 3}))
    args = (np.ones((3, 2)), np.array([0, 2]), np.array([0, 2]))
    np.testing.assert_array_equal(g(*args).numpy(), [[1, 1], [0, 0], [1, 1]])
    # (jax compiles fixed shapes; the numpy plan would keep the trace's length wherever it was read)
    with pytest.raises(tp.TracedValueError, match="Pass num_segments" if tp_backend == "jax" else
                       "'SparseSegmentSum' gives an output whose length depends on the values"):
        f(*args)
    with pytest.raises(tp.TracedValueError, match="SparseFillEmptyRows"):
        fill = tp.jit(lambda i, v: tp.run_kernel("SparseFillEmptyRows", [i, v, SHAPE, ZERO]))
        fill(np.array([[1, 0]]), np.ones(1))
