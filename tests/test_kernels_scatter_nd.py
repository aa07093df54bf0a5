"""GatherNd, ScatterNd and TensorScatterUpdate against TF's definitions written as loops over
the index rows, for float, integer and bool data and both index dtypes; indices out of range
(negative ones included) are IndexOutOfRangeErrors naming the row."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import INTS, assert_values, raises_for, run, sample

DTYPES = pytest.mark.parametrize("dtype", (tp.float64, tp.int32, tp.bool), ids=lambda d: d.name)

# (indexed shape, indices): the last axis of indices addresses the leading axes
TABLE = [((5,), [[0], [4], [2], [2]]), ((3, 4), [[1, 0], [2, 3], [1, 0]]), ((3, 4), [[2], [0]]),
         ((2, 3, 2), [[[1, 2], [0, 0]], [[1, 1], [0, 2]]]), ((3, 4), np.zeros((0, 2), int)),
         ((2, 3), [[0, 1], [1, 2]])]
#: (shape, indices as an array of int32 or int64, alternately)
CASES = pytest.mark.parametrize(("shape", "idx"), [(s, np.asarray(i, INTS[k % 2].numpy)) for k, (s, i) in
                                                   enumerate(TABLE)], ids=str)


def _rows(indices):
    return indices.reshape(-1, indices.shape[-1])


def _slices(shape, indices):
    return indices.shape[:-1] + shape[indices.shape[-1]:]


@CASES
@DTYPES
def test_gather_nd(dtype, shape, idx):
    params = sample(shape, dtype)
    want = np.stack([params[tuple(r)] for r in _rows(idx)]) if idx.size else np.zeros((0,), dtype.numpy)
    got = run("GatherNd", {"params": params, "indices": idx})
    assert_values(got, want.reshape(_slices(shape, idx)), dtype)


@CASES
@pytest.mark.parametrize("dtype", (tp.float32, tp.int64), ids=lambda d: d.name)
def test_scatter_nd_adds_repeated_indices(dtype, shape, idx):
    updates = sample(_slices(shape, idx), dtype, seed=1)
    want = np.zeros(shape, dtype.numpy)
    for r, u in zip(_rows(idx), updates.reshape((-1,) + shape[idx.shape[-1]:])):
        want[tuple(r)] += u
    assert_values(run("ScatterNd", {"indices": idx, "updates": updates}, {"shape": shape}), want, dtype)


def test_scatter_nd_of_bools_is_a_logical_or():
    got = run("ScatterNd", {"indices": np.array([[1], [1], [0]]), "updates": np.array([True, True, False])},
              {"shape": (3,)})
    np.testing.assert_array_equal(got, [False, True, False])


@pytest.mark.parametrize(("shape", "idx"), [(s, np.asarray(i, d.numpy)) for (s, i), d in
                                           zip([TABLE[k] for k in (2, 3, 4, 5)], INTS * 2)], ids=str)
@pytest.mark.parametrize("dtype", (tp.float64, tp.bool), ids=lambda d: d.name)
def test_tensor_scatter_update_replaces_slices(dtype, shape, idx):
    tensor = sample(shape, dtype)
    updates = sample(_slices(shape, idx), dtype, seed=1)
    want = tensor.copy()
    for r, u in zip(_rows(idx), updates.reshape((-1,) + shape[idx.shape[-1]:])):
        want[tuple(r)] = u
    got = run("TensorScatterUpdate", {"tensor": tensor, "indices": idx, "updates": updates})
    assert_values(got, want, dtype)


@pytest.mark.parametrize(("indices", "fragments"), [
    ([[0, 1], [2, 0]], ("index [2, 0]", "axis 0 has size 2")),
    ([[0, -1]], ("index [0, -1]", "axis 1 has size 3", "not counted from the end")),
    ([[1, 3], [5, 5]], ("index [1, 3]", "2 rows out of range")),
], ids=str)
def test_out_of_range_rows_are_index_errors_naming_the_row(indices, fragments):
    idx = np.asarray(indices, np.int64)
    raises_for("GatherNd", tp.IndexOutOfRangeError, {"params": np.zeros((2, 3)), "indices": idx}, None,
               *fragments)
    raises_for("ScatterNd", tp.IndexOutOfRangeError, {"indices": idx, "updates": np.zeros(len(idx))},
               {"shape": (2, 3)}, *fragments)
    raises_for("TensorScatterUpdate", tp.IndexOutOfRangeError,
               {"tensor": np.zeros((2, 3)), "indices": idx, "updates": np.zeros(len(idx))}, None, *fragments)


def test_shape_errors_from_the_spec():
    raises_for("GatherNd", tp.ShapeError, {"params": np.zeros((2, 3)), "indices": np.zeros((1, 3), int)},
               None, "address 3 axes", "only 2")
    raises_for("GatherNd", tp.ShapeError, {"params": np.zeros(3), "indices": np.zeros((2, 0), int)},
               None, "address no axis")
    raises_for("ScatterNd", tp.ShapeError, {"indices": np.zeros((2, 1), int), "updates": np.zeros(3)},
               {"shape": (4,)}, "updates have shape (3,)", "(2,)")
    raises_for("TensorScatterUpdate", tp.DTypeError, {"tensor": np.zeros(3), "indices": np.zeros((1, 1), int),
               "updates": np.zeros(1, np.float32)}, None, "dtype")
