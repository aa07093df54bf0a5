"""NumPy backend, indexing kernels: StridedSlice, StridedSliceGrad, Gather, ScatterAdd, NonZero,
OneHot against numpy references, for every dtype each spec accepts; out-of-range indices are
IndexOutOfRangeErrors naming kernel, backend, axis, size and index."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import INTS, assert_values, holds, per_kind, raises_for, run, sample
from tensorplug.errors import IndexOutOfRangeError

#: data movement is dtype-blind: one dtype per kind (the conformance runs hold every dtype)
ALL = pytest.mark.parametrize("dtype", per_kind(tp.dtypes.ALL_DTYPES), ids=lambda d: d.name)
INDEX_DTYPES = pytest.mark.parametrize("index_dtype", INTS, ids=lambda d: d.name)


def _normalized(shape, index):
    """(start, stop, step) per axis as slice.indices gives them, the form the spec takes."""
    return tuple(s.indices(n) for s, n in zip(index, shape))


# -- StridedSlice, StridedSliceGrad -------------------------------------------------------------
SLICES = [
    ((5,), (slice(None),)),
    ((5,), (slice(1, 4),)),
    ((5,), (slice(None, None, 2),)),
    ((5,), (slice(None, None, -1),)),
    ((5,), (slice(3, 0, -2),)),
    ((5,), (slice(4, None, -3),)),
    ((5,), (slice(3, 3),)),
    ((5,), (slice(10, 20),)),
    ((5,), (slice(-2, None),)),
    ((0,), (slice(None, None, -1),)),
    ((0,), (slice(None),)),
    ((3, 4), (slice(None, None, -1), slice(1, None, 2))),
    ((3, 4), (slice(0, 1), slice(None, None, -2))),
    ((2, 3, 4), (slice(1, 2), slice(None), slice(3, 0, -1))),
    ((), ()),
]


@pytest.mark.parametrize(("shape", "index"), SLICES, ids=str)
@ALL
def test_strided_slice(dtype, shape, index):
    x = sample(shape, dtype)
    got = run("StridedSlice", {"x": x}, {"slices": _normalized(shape, index)})
    assert_values(got, x[index], dtype)


@pytest.mark.parametrize(("shape", "index"), SLICES, ids=str)
@ALL
def test_strided_slice_grad(dtype, shape, index):
    dy = sample(np.empty(shape)[index].shape, dtype, 1, 3)
    got = run("StridedSliceGrad", {"dy": dy}, {"shape": shape, "slices": _normalized(shape, index)})
    want = np.zeros(shape, dtype.numpy)
    want[index] = dy
    assert_values(got, want, dtype)


@pytest.mark.parametrize("slices", [((0, 6, 1),), ((3, -1, -1),), ((-1, 2, 1),), ((0, 7, 3),)], ids=str)
def test_strided_slice_refuses_slices_leaving_the_axis(slices):
    raises_for("StridedSlice", tp.ShapeError, {"x": np.zeros(3)}, {"slices": slices},
               str(slices[0]), "axis 0 of size 3")


def test_strided_slice_needs_one_slice_per_axis():
    raises_for("StridedSlice", tp.ShapeError, {"x": np.zeros((2, 3))}, {"slices": ((0, 2, 1),)},
               "1 slices given for a 2-d input")
    with pytest.raises(tp.ShapeError, match="step cannot be zero"):
        tp.run_kernel("StridedSlice", {"x": np.zeros(3)}, {"slices": ((0, 3, 0),)})


def test_strided_slice_grad_refuses_a_dy_of_the_wrong_shape():
    raises_for("StridedSliceGrad", tp.ShapeError, {"dy": np.zeros(2)},
               {"shape": (5,), "slices": ((0, 5, 1),)}, "dy has shape (2,)", "(5,)")


# -- Gather -------------------------------------------------------------------------------------
GATHERS = [
    ((4, 3), [0, 2, 2], 0), ((4, 3), [2, 0], 1), ((4, 3), [-1, 1], -1), ((4, 3), 3, 0),
    ((4, 3), [[0, 1], [3, -4]], 0), ((4, 3), np.zeros((0,), int), 1), ((4,), [1, -1, 0], 0),
    ((2, 3, 4), [[3], [0]], 2), ((0, 3), [1, 2], 1),
]


@pytest.mark.parametrize(("shape", "indices", "axis"), GATHERS, ids=str)
@INDEX_DTYPES
@ALL
def test_gather(dtype, index_dtype, shape, indices, axis):
    x = sample(shape, dtype)
    idx = np.asarray(indices).astype(index_dtype.numpy)
    got = run("Gather", {"x": x, "indices": idx}, {"axis": axis})
    assert_values(got, np.take(x, idx, axis=axis), dtype)


@pytest.mark.parametrize(("shape", "indices", "axis", "fragments"), [
    ((4, 3), [0, 3], 1, ("index 3", "axis 1 of size 3", "-3..2")),
    ((4, 3), [1, -5], 0, ("index -5", "axis 0 of size 4", "-4..3")),
    ((4, 3), [[9, 0], [1, 7]], -2, ("index 9", "axis -2 of size 4", "2 indices out of range")),
    ((0, 3), [0], 0, ("index 0", "axis 0 of size 0", "empty")),
], ids=str)
@INDEX_DTYPES
def test_gather_out_of_range_is_an_index_error_naming_the_index(index_dtype, shape, indices, axis, fragments):
    exc = raises_for("Gather", IndexOutOfRangeError, {"x": np.zeros(shape, np.float32),
                     "indices": np.asarray(indices, index_dtype.numpy)}, {"axis": axis}, *fragments)
    assert isinstance(exc.value, IndexError) and isinstance(exc.value, tp.TensorplugError)


def test_gather_errors_from_the_spec():
    raises_for("Gather", tp.DTypeError, {"x": np.zeros(3), "indices": np.zeros(2)}, None,
               "indices", "int32 or int64", "got float64")
    raises_for("Gather", tp.ShapeError, {"x": np.zeros((2, 3)), "indices": np.zeros(2, int)}, {"axis": 2},
               "axis 2 is out of range")
    raises_for("Gather", tp.ShapeError, {"x": np.float32(1), "indices": np.zeros(1, int)}, None, "0-d")


# -- ScatterAdd ---------------------------------------------------------------------------------
def _scatter_ref(indices, updates, shape, axis):
    """Updates added one index at a time (moving the indexed axis first)."""
    a = axis % len(shape)
    out = np.zeros(shape, updates.dtype)
    target = np.moveaxis(out, a, 0)  # a view: writes land in `out`
    moved = np.moveaxis(updates, list(range(a, a + indices.ndim)), list(range(indices.ndim)))
    moved = moved.reshape((indices.size,) + moved.shape[indices.ndim:])
    for j, i in enumerate(indices.ravel()):
        target[i] = target[i] + moved[j]
    return out


SCATTERS = [
    ([0, 2, 0], (4,), 0), ([1, 1, -1], (3, 2), 0), ([0, 2], (3, 3), 1), ([[0, 1], [1, 1]], (2, 3), -1),
    (3, (5, 2), 0), (np.zeros(0, int), (3,), 0), ([0, 1], (2, 0), 0),
]


@pytest.mark.parametrize(("indices", "shape", "axis"), SCATTERS, ids=str)
@INDEX_DTYPES
@ALL
def test_scatter_add(dtype, index_dtype, indices, shape, axis):
    idx = np.asarray(indices).astype(index_dtype.numpy)
    a = axis % len(shape)
    updates = sample(shape[:a] + idx.shape + shape[a + 1:], dtype, 1, 3)
    got = run("ScatterAdd", {"indices": idx, "updates": updates}, {"shape": shape, "axis": axis})
    assert_values(got, _scatter_ref(idx, updates, shape, axis), dtype)


def test_scatter_add_accumulates_repeated_indices():
    got = run("ScatterAdd", {"indices": np.array([1, 1, 1, 0]), "updates": np.ones(4, np.float32)},
              {"shape": (3,)})
    assert got.tolist() == [1, 3, 0]


def test_scatter_add_errors():
    raises_for("ScatterAdd", IndexOutOfRangeError, {"indices": np.array([0, 4]), "updates": np.ones(2)},
               {"shape": (4,)}, "index 4", "axis 0 of size 4")
    raises_for("ScatterAdd", tp.ShapeError, {"indices": np.array([0, 1]), "updates": np.ones(3)},
               {"shape": (4,)}, "updates have shape (3,)", "(2,)")
    raises_for("ScatterAdd", tp.ShapeError, {"indices": np.array([0]), "updates": np.ones(1)},
               {"shape": ()}, "0-d")


# -- NonZero ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 0, 2)], ids=str)
@ALL
def test_nonzero(dtype, shape):
    x = sample(shape, dtype, -1, 1)
    got = run("NonZero", {"x": x})
    assert_values(got, np.flatnonzero(x), tp.int64)


def test_nonzero_of_a_nonzero_scalar_and_nan():
    assert run("NonZero", {"x": np.float32(2)}).tolist() == [0]
    assert run("NonZero", {"x": np.array([0.0, np.nan, -0.0])}).tolist() == [1]


# -- OneHot -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("indices", "depth"), [
    ([0, 2, 1], 3), ([[0, 1], [3, -1]], 3), (2, 4), ([5, -1, 0], 2), ([0, 1], 0), (np.zeros((0,), int), 3),
], ids=str)
@pytest.mark.parametrize(("on", "off"), [(1.0, 0.0), (5.0, -1.0), (0.0, 1.0)])
@ALL
@INDEX_DTYPES
def test_one_hot(index_dtype, dtype, indices, depth, on, off):
    idx = np.asarray(indices).astype(index_dtype.numpy)
    if not (holds(dtype, on) and holds(dtype, off)):
        attrs = {"depth": depth, "on_value": on, "off_value": off, "dtype": dtype}
        raises_for("OneHot", tp.DTypeError, {"indices": idx}, attrs, f"does not fit in {dtype.name}")
        return
    got = run("OneHot", {"indices": idx}, {"depth": depth, "on_value": on, "off_value": off, "dtype": dtype})
    hot = idx[..., None] == np.arange(depth)  # out-of-range indices (negative too) give all-off rows
    on_, off_ = np.array(on).astype(dtype.numpy), np.array(off).astype(dtype.numpy)
    assert_values(got, np.where(hot, on_, off_), dtype)


def test_one_hot_errors():
    raises_for("OneHot", tp.ShapeError, {"indices": np.array([0])}, {"depth": -1}, "depth must be >= 0")
    raises_for("OneHot", tp.DTypeError, {"indices": np.array([0.0])}, {"depth": 2}, "got float64")
