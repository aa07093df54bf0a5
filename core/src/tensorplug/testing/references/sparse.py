"""Reference values of the sparse kernels (TF semantics), by loops over the entries:
SparseSegmentSum/Mean (repeated and skipped segments, num_segments given or the last id + 1),
SparseToDense (0-d, 1-d and 2-d indices, a scalar value), SparseReshape (a -1 inferred),
SparseFillEmptyRows (unordered rows, empty first and last rows)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.dtypes import float32, float64, int64
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, index_array, sample
from tensorplug.testing.references._base import other_dtypes, reference

# (data shape, indices, segment_ids, num_segments)
_SEGMENTS = [((4, 2), [0, 1, 3], [0, 0, 2], None), ((5,), [4, 4, 0, 2], [0, 1, 1, 3], 5),
             ((3, 2), np.zeros(0, int), np.zeros(0, int), None), ((3, 2), [2], [0], 2)]


def _segment_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for j, (d, rows) in enumerate(((float64, None), (float32, 1))):
        for i, (shape, idx, ids, n) in enumerate(_SEGMENTS[:rows]):
            # gradients checked on two cases, with num_segments: no output of a size the values decide
            label = "" if n is not None and not j else "special"
            out.append(Case((sample(shape, d, key=i), index_array(idx, spec, "indices", i + j),
                             index_array(ids, spec, "segment_ids", i + j + 1)), {"num_segments": n}, label))
    shape, idx, ids, n = _SEGMENTS[0]
    out += other_dtypes(spec, out, "data", lambda d: Case(
        (sample(shape, d, key=0), np.asarray(idx, np.int64), np.asarray(ids, np.int64)), {"num_segments": n},
        "special"))
    for name in ("indices", "segment_ids"):
        out += other_dtypes(spec, out, name, lambda d: Case(
            (sample(shape, float64, key=0), np.asarray(idx, d.numpy), np.asarray(ids, d.numpy)),
            {"num_segments": n}, "special"))
    return out


def _segment_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((3, 2), float32)
    return [BadCase((x, np.array([0, 1], np.int64), np.array([0], np.int64)), error=ShapeError,
                    why="indices and segment_ids of different lengths"),
            BadCase((np.zeros((3, 2), np.int32), np.array([0], np.int64), np.array([0], np.int64)),
                    error=DTypeError, why="integer data")]


def _sparse_segment(mean: bool) -> Any:
    def compute(data: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, num_segments: Any) -> Any:
        n = (int(segment_ids[-1]) + 1 if segment_ids.size else 0) if num_segments is None else num_segments
        out = np.zeros((n,) + data.shape[1:], data.dtype)
        for s in range(n):
            rows = data[indices[segment_ids == s]]
            if rows.shape[0]:
                out[s] = rows.mean(axis=0) if mean else rows.sum(axis=0)
        return out
    return compute


reference("SparseSegmentSum", _segment_cases, _segment_bad)(_sparse_segment(False))
reference("SparseSegmentMean", _segment_cases, _segment_bad)(_sparse_segment(True))

# (indices, values shape, output shape)
_TO_DENSE = [([[0, 1], [2, 0], [1, 1]], (3,), (3, 2)), ([3, 0], (2,), (5,)), (2, (), (4,)),
             ([[1, 0, 1]], (), (2, 2, 2)), (np.zeros((0, 2), int), (0,), (2, 3))]


def _to_dense_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for j, (d, rows) in enumerate(((float64, None), (int64, 1))):
        for i, (idx, vshape, shape) in enumerate(_TO_DENSE[:rows]):
            default = np.asarray(-1, d.numpy)
            indices = index_array(idx, spec, "sparse_indices", i + j)
            out.append(Case((indices, sample(vshape, d, key=i), default), {"output_shape": shape}))
    idx, vshape, shape = _TO_DENSE[0]
    out += other_dtypes(spec, out, "sparse_indices", lambda d: Case(
        (np.asarray([[2]], d.numpy), sample((1,), float64, key=0), np.asarray(-1.0)), {"output_shape": (5,)}))
    return out + other_dtypes(spec, out, "sparse_values", lambda d: Case(
        (np.asarray(idx, np.int64), sample(vshape, d, key=0), sample((), d, key=1)), {"output_shape": shape}))


def _to_dense_bad(spec: KernelSpec) -> list[BadCase]:
    v, default = sample((2,), float32), np.asarray(0, np.float32)
    return [BadCase((np.array([[0, 3], [1, 1]], np.int64), v, default), {"output_shape": (2, 2)},
                    error=IndexOutOfRangeError, why="an index past the end"),
            BadCase((np.array([[0, 1, 0]], np.int64), v[:1], default), {"output_shape": (2, 2)},
                    error=ShapeError, why="indices of another rank than the output")]


@reference("SparseToDense", _to_dense_cases, _to_dense_bad)
def _to_dense(sparse_indices: np.ndarray, sparse_values: np.ndarray, default_value: np.ndarray,
              output_shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(output_shape, default_value, sparse_values.dtype)
    rows = sparse_indices.reshape(-1, len(output_shape))
    values = np.broadcast_to(sparse_values, rows.shape[:1])
    for row, value in zip(rows, values):
        out[tuple(row)] = value
    return out


# (indices, shape, new shape)
_RESHAPE = [([[0, 1], [1, 2], [1, 0]], [2, 3], [3, -1]), ([[0, 1, 1]], [2, 2, 2], [8]),
            ([[5]], [6], [2, 1, 3]), (np.zeros((0, 2), int), [0, 3], [3, -1]), ([[1, 3]], [2, 4], [-1, 2, 2])]


def _reshape_cases(spec: KernelSpec) -> list[Case]:
    return [Case(tuple(np.asarray(a, np.int64) for a in (idx, shape, new))) for idx, shape, new in _RESHAPE]


def _reshape_bad(spec: KernelSpec) -> list[BadCase]:
    idx = np.array([[0, 1]], np.int64)
    return [BadCase((idx, np.array([2, 3], np.int64), np.array([4], np.int64)), error=ShapeError,
                    why="a new shape of another size", by_value=True),
            BadCase((idx, np.array([2, 3], np.int64), np.array([-1, -1], np.int64)), error=ShapeError,
                    why="two -1s", by_value=True)]


@reference("SparseReshape", _reshape_cases, _reshape_bad)
def _reshape(input_indices: np.ndarray, input_shape: np.ndarray, new_shape: np.ndarray) -> Any:
    size = int(np.prod(input_shape))
    new = [int(d) for d in new_shape]
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        new[new.index(-1)] = size // known if known else 0
    out = np.zeros((input_indices.shape[0], len(new)), np.int64)
    for i, row in enumerate(input_indices):
        linear = int(np.ravel_multi_index(tuple(row), tuple(int(d) for d in input_shape)))
        out[i] = np.unravel_index(linear, tuple(new))
    return out, np.array(new, np.int64)


# (indices, dense shape)
_FILL = [([[3, 1], [0, 2], [3, 0]], [5, 4]), ([[1], [1]], [2]), (np.zeros((0, 2), int), [2, 2]),
         ([[0, 0], [1, 1]], [2, 2])]


def _fill_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d, rows in ((float64, None), (int64, 1)):
        for i, (idx, shape) in enumerate(_FILL[:rows]):
            indices = np.asarray(idx, np.int64).reshape(-1, len(shape))
            out.append(Case((indices, sample(indices.shape[:1], d, key=i), np.asarray(shape, np.int64),
                             np.asarray(-7, d.numpy))))
    first, dense = out[0].inputs[0], out[0].inputs[2]
    return out + other_dtypes(spec, out, "values", lambda d: Case(
        (first, sample(first.shape[:1], d, key=0), dense, sample((), d, key=1))))


def _fill_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((np.array([[2, 0]], np.int64), np.ones(1, np.float32), np.array([2, 2], np.int64),
                     np.asarray(0, np.float32)), error=IndexOutOfRangeError,
                    why="a row past the dense shape"),
            BadCase((np.array([[0, 0]], np.int64), np.ones(2, np.float32), np.array([2, 2], np.int64),
                     np.asarray(0, np.float32)), error=ShapeError, why="one value too many")]


@reference("SparseFillEmptyRows", _fill_cases, _fill_bad)
def _fill_empty_rows(indices: np.ndarray, values: np.ndarray, dense_shape: np.ndarray,
                     default_value: np.ndarray) -> Any:
    out_idx, out_val, where = [], [], np.zeros(len(indices), np.int64)
    empty = np.zeros(int(dense_shape[0]), bool)
    for r in range(int(dense_shape[0])):
        mine = [i for i in range(len(indices)) if indices[i, 0] == r]
        empty[r] = not mine
        if not mine:
            out_idx.append([r] + [0] * (indices.shape[1] - 1))
            out_val.append(default_value)
        for i in mine:
            where[i] = len(out_idx)
            out_idx.append(list(indices[i]))
            out_val.append(values[i])
    return (np.array(out_idx, np.int64).reshape(-1, indices.shape[1]), np.array(out_val, values.dtype),
            empty, where)
