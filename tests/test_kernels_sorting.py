"""Sorting kernels (Sort, ArgSort, SearchSorted, Unique) on each first-party backend, against
numpy and against the order's definition: stable in both directions, NaNs last also when
descending, -0.0 == +0.0; int64 indices; every accepted dtype; errors naming the kernel."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import accepted_dtypes, assert_values, kernel_dtype_cases, raises_for, run, sample

SPECIAL = np.array([1.5, np.nan, -0.0, 1.5, 0.0, -np.inf, np.nan, 2.0, np.inf, 1.5])


def _lane_order(lane: np.ndarray, descending: bool) -> list[int]:
    """The definition: positions sorted by (is NaN, value or -value), ties by position
    (Python's sort is stable)."""
    def key(i: int) -> tuple[bool, float]:
        v = float(lane[i])
        return (math.isnan(v), 0.0 if math.isnan(v) else (-v if descending else v))
    return sorted(range(lane.size), key=key)


def defined_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    if x.size == 0:
        return np.zeros(x.shape, np.int64)
    return np.apply_along_axis(_lane_order, axis, x, descending).astype(np.int64)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize(("name", "dtype"), kernel_dtype_cases(["Sort", "ArgSort"]))
def test_sort_and_argsort_follow_the_definition(name, dtype, axis, descending):
    x = sample((3, 4, 5), dtype, -2, 2)  # integers repeat: ties
    order = defined_order(x, axis, descending)
    got = run(name, {"x": x}, {"axis": axis, "descending": descending})
    want = order if name == "ArgSort" else np.take_along_axis(x, order, axis=axis)
    assert_values(got, want)
    if not descending:  # and numpy's own stable sort
        ref = np.argsort(x, axis=axis, kind="stable")
        assert_values(got, ref if name == "ArgSort" else np.sort(x, axis=axis, kind="stable"))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64], ids=lambda d: d.name)
def test_nans_go_last_and_signed_zeros_tie_in_both_directions(dtype, descending):
    x = SPECIAL.astype(dtype.numpy)
    order = run("ArgSort", {"x": x}, {"descending": descending})
    np.testing.assert_array_equal(order, defined_order(x, 0, descending))
    assert order[-2:].tolist() == [1, 6]  # the NaNs, in their order
    zeros = [i for i in order if i in (2, 4)]
    assert zeros == [2, 4]  # -0.0 before 0.0, as they came
    values = run("Sort", {"x": x}, {"descending": descending})
    np.testing.assert_array_equal(values, x[order])
    if not descending:
        np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))


def test_descending_is_stable_for_bools_and_extreme_integers():
    b = np.array([True, False, True, False, True])
    assert run("ArgSort", {"x": b}, {"descending": True}).tolist() == [0, 2, 4, 1, 3]
    lo = np.iinfo(np.int64).min  # (its negation overflows: no sort by -x for integers)
    x = np.array([lo, 3, lo, -1, 3], np.int64)
    assert run("ArgSort", {"x": x}, {"descending": True}).tolist() == [1, 4, 3, 0, 2]


@pytest.mark.parametrize("name", ["Sort", "ArgSort"])
def test_sort_edge_shapes(name):
    for shape, axis in (((0,), 0), ((3, 0), 0), ((3, 0), 1), ((1,), -1)):
        x = sample(shape, tp.float32)
        got = run(name, {"x": x}, {"axis": axis})
        assert got.shape == shape


@pytest.mark.parametrize("name", ["Sort", "ArgSort"])
def test_sort_refuses_bad_axes_and_0d_inputs(name):
    raises_for(name, tp.ShapeError, {"x": np.zeros((2, 3), np.float32)}, {"axis": 2},
               "axis 2 is out of range")
    raises_for(name, tp.ShapeError, {"x": np.float32(1.0)}, None, "cannot sort a 0-d tensor")


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", accepted_dtypes("SearchSorted"), ids=lambda d: d.name)
def test_search_sorted_against_numpy_and_the_index_condition(dtype, side):
    x1 = np.sort(sample((9,), dtype, -2, 2, seed=1), kind="stable")  # with repeats
    for x2 in (sample((2, 3), dtype, -3, 3, seed=2), sample((), dtype, seed=3), sample((0,), dtype)):
        got = run("SearchSorted", {"x1": x1, "x2": x2}, {"side": side})
        assert_values(got, np.searchsorted(x1, x2, side=side))
        below = (lambda a, v: a < v) if side == "left" else (lambda a, v: a <= v)
        for i, v in zip(got.reshape(-1), x2.reshape(-1)):  # x1[i-1] <below> v, not x1[i] <below> v
            assert (i == 0 or below(x1[i - 1], v)) and (i == x1.size or not below(x1[i], v))


@pytest.mark.parametrize("side", ["left", "right"])
def test_search_sorted_places_nans_last_as_sort_does(side):
    x1 = np.sort(SPECIAL)
    got = run("SearchSorted", {"x1": x1, "x2": SPECIAL}, {"side": side})
    assert_values(got, np.searchsorted(x1, SPECIAL, side=side))
    assert run("SearchSorted", {"x1": x1[:0], "x2": SPECIAL}, {"side": side}).tolist() == [0] * SPECIAL.size


def test_search_sorted_refuses_a_haystack_that_is_not_1d():
    raises_for("SearchSorted", tp.ShapeError, {"x1": np.zeros((2, 3)), "x2": np.zeros(2)}, None,
               "x1 must be 1-d")
    with pytest.raises(tp.ShapeError, match="kernel 'SearchSorted': attribute 'side'='middle' is invalid: "
                                            "side must be 'left' or 'right'"):
        tp.run_kernel("SearchSorted", {"x1": np.zeros(3), "x2": np.zeros(2)}, {"side": "middle"})


def _unique(x: np.ndarray) -> list[np.ndarray]:
    out = tp.run_kernel("Unique", {"x": tp.asarray(x)})
    assert [t.dtype for t in out[1:]] == [tp.int64] * 3 and out[0].dtype.numpy == x.dtype
    return [np.asarray(t.numpy()) for t in out]


@pytest.mark.parametrize("dtype", accepted_dtypes("Unique"), ids=lambda d: d.name)
def test_unique_is_numpys_unique_all(dtype):
    for x in (sample((3, 4), dtype, -2, 2), sample((), dtype), sample((0, 2), dtype), sample((1,), dtype)):
        values, first, inverse, counts = _unique(x)
        want = np.unique_all(x)
        for got, w in zip((values, first, inverse, counts), want):
            assert_values(got, w)
        np.testing.assert_array_equal(values[inverse], x)  # inverse_indices rebuild x


def test_unique_counts_each_nan_once_and_signed_zeros_together():
    values, first, inverse, counts = _unique(np.array([[1.0, np.nan, -0.0], [np.nan, 0.0, 1.0]]))
    np.testing.assert_array_equal(values, [0.0, 1.0, np.nan, np.nan])
    assert first.tolist() == [2, 0, 1, 3] and counts.tolist() == [2, 2, 1, 1]
    assert inverse.tolist() == [[1, 2, 0], [3, 0, 1]]


def test_unique_orders_complex_values_by_real_then_imaginary_part():
    x = np.array([[1 + 2j, 1 + 1j, -1j], [1 + 2j, 2 + 0j, -0.0 + 0j], [0j, 1 + 1j, 2 - 1j]], np.complex64)
    values, first, inverse, counts = _unique(x)
    want = sorted(set(x.reshape(-1).tolist()), key=lambda z: (z.real, z.imag))
    np.testing.assert_array_equal(values, np.array(want, np.complex64))
    np.testing.assert_array_equal(values[inverse], x)
    assert counts.tolist() == [int(np.sum(x == v)) for v in want]
    assert first.tolist() == [int(np.argmax(x.reshape(-1) == v)) for v in want]


@pytest.mark.parametrize("name", ["Sort", "ArgSort"])
def test_sort_kernels_still_refuse_complex_values(name):
    with pytest.raises(tp.DTypeError, match="complex64"):
        tp.run_kernel(name, {"x": tp.asarray(np.ones(3, np.complex64))}, {"axis": -1})


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


@pytest.mark.parametrize("dtype", accepted_dtypes("UniqueCounts"), ids=lambda d: d.name)
def test_unique_counts_is_numpys_and_uniques_values_and_counts_bit_for_bit(dtype):
    for x in (sample((3, 4), dtype, -2, 2), sample((), dtype), sample((0, 2), dtype), sample((1,), dtype)):
        out = tp.run_kernel("UniqueCounts", {"x": tp.asarray(x)})
        assert out[0].dtype.numpy == x.dtype and out[1].dtype is tp.int64
        values, counts = (np.asarray(t.numpy()) for t in out)
        want = np.unique(x.reshape(-1), return_counts=True, equal_nan=False)
        assert_values(values, want[0])
        assert_values(counts, want[1])
        unique = _unique(x)
        assert _bits(values) == _bits(unique[0]) and counts.tolist() == unique[3].tolist()


@pytest.mark.parametrize("dtype", [tp.float32, tp.complex128], ids=lambda d: d.name)
def test_unique_counts_keeps_the_first_signed_zero_and_nans_as_unique_does(dtype):
    """Long enough for numpy's unstable sort to move equal values: of -0.0 and +0.0 (of 1+0j and
    1-0j) the first one given is kept, as Unique (its first occurrence) keeps it; NaNs of
    different signs each count once."""
    rng = np.random.default_rng(3)
    base = np.array([0.0, -0.0, 1.0, np.nan, -np.nan, 2.0])
    if dtype.is_complex:
        base = np.concatenate([base, [complex(1, 0.0), complex(1, -0.0), complex(-0.0, 1)]])
    for first in range(2):
        x = rng.choice(base, 3000).astype(dtype.numpy)
        x[0] = base[first]
        values, counts = (np.asarray(t.numpy()) for t in tp.run_kernel("UniqueCounts", {"x": tp.asarray(x)}))
        unique = _unique(x)
        assert _bits(values) == _bits(unique[0]) and counts.tolist() == unique[3].tolist()
        zero = values[values == 0]
        assert zero.size == 1 and _bits(zero) == _bits(x[:1])
        assert counts.sum() == x.size and np.isnan(values).sum() == np.isnan(x).sum()
