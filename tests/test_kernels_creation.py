"""NumPy backend, creation kernels: Fill, Range, Eye, RandomUniform, RandomNormal in every dtype
the specs allow, with the spec's shapes (Range's length is the spec's ceil rule exactly)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import FLOATS, assert_values, holds, per_kind, raises_for, run

#: Fill and Range convert Python numbers to every dtype (ranges, fits, rounding, a float range's
#: length): every dtype; Eye and the edge shapes: one dtype per kind
ALL = pytest.mark.parametrize("dtype", tp.dtypes.ALL_DTYPES, ids=lambda d: d.name)
PER_KIND = pytest.mark.parametrize("dtype", per_kind(tp.dtypes.ALL_DTYPES), ids=lambda d: d.name)
FILL_SHAPES = [(), (0,), (1,), (2, 3), (2, 0, 1)]


@pytest.mark.parametrize("value", [0, 1, -3, 2.5, True, False])
@pytest.mark.parametrize(("dtype", "shape"), [
    pytest.param(d, s, id=f"{d.name}-{s}") for d in tp.dtypes.ALL_DTYPES
    for s in (FILL_SHAPES if d in per_kind(tp.dtypes.ALL_DTYPES) else [(2, 3)])])
def test_fill(dtype, shape, value):
    if not holds(dtype, value):
        raises_for("Fill", tp.DTypeError, {}, {"shape": shape, "value": value, "dtype": dtype},
                   f"fill value {value} does not fit in {dtype.name}")
        return
    got = run("Fill", {}, {"shape": shape, "value": value, "dtype": dtype})
    assert_values(got, np.full(shape, np.array(value).astype(dtype.numpy)), dtype)


def test_fill_refuses_negative_sizes():
    raises_for("Fill", tp.ShapeError, {}, {"shape": (2, -1), "value": 0}, "(2, -1)", "negative")


RANGES = [(0, 5, 1), (2, 10, 3), (5, 0, -1), (5, 0, -2), (0, 0, 1), (3, 1, 1), (-4, 4, 2),
          (0.0, 1.0, 0.25), (0.5, 3, 0.5), (1.0, -1.0, -0.3), (0, 1, 0.1), (10, 0, 3)]


@pytest.mark.parametrize(("start", "stop", "step"), RANGES, ids=str)
@ALL
def test_range(dtype, start, stop, step):
    exact = all(isinstance(v, int) for v in (start, stop, step))
    want = np.arange(start, stop, step, dtype=np.int64 if exact else np.float64)
    attrs = {"start": start, "stop": stop, "step": step, "dtype": dtype}
    if dtype.is_complex:
        raises_for("Range", tp.DTypeError, {}, attrs, f"a range needs a real dtype, got {dtype.name}")
        return
    if not all(holds(dtype, v) for v in want):
        raises_for("Range", tp.DTypeError, {}, attrs, f"does not fit in {dtype.name}")
        return
    got = run("Range", {}, attrs)
    assert_values(got, want.astype(dtype.numpy), dtype)


def test_range_with_an_integer_dtype_and_a_fractional_step_casts_each_value():
    got = run("Range", {}, {"start": 0, "stop": 2, "step": 0.5, "dtype": tp.int64})
    assert got.tolist() == [0, 0, 1, 1]  # numpy's arange(..., dtype=int) gives [0, 0, 0, 0]


# ranges that take the numpy kernel's fast paths (no multiply for a step of 1, no add for a
# start of 0, np.arange in the output dtype for integer counts from 0) and the general one
FAST_RANGES = [(0, 1000, 1), (0, 128, 1), (7, 1007, 1), (0, 1000, 3), (-5, 995, 1), (0, 7, 0.1),
               (2.5, 1000, 1), (0.0, 999.0, 1.0), (0.0, 1.0, 0.001), (1.5, -7.0, -0.3), (0, -999, -1)]


@pytest.mark.parametrize(("start", "stop", "step"), FAST_RANGES, ids=str)
@pytest.mark.parametrize("dtype", [tp.int8, tp.int32, tp.int64, tp.uint16, tp.float32, tp.float64],
                         ids=lambda d: d.name)
def test_range_fast_paths_give_the_general_formula_exactly(dtype, start, stop, step):
    exact = all(isinstance(v, int) for v in (start, stop, step))
    n = max(0, int(np.ceil((stop - start) / step)))
    formula = np.arange(n, dtype=np.int64 if exact else np.float64) * step + start
    attrs = {"start": start, "stop": stop, "step": step, "dtype": dtype}
    if not all(holds(dtype, v) for v in formula[[0, -1]]):
        return  # the spec refuses it (test_range)
    got = run("Range", {}, attrs)
    assert got.dtype == dtype.numpy
    np.testing.assert_array_equal(got, formula.astype(dtype.numpy), strict=True)


def test_range_refuses_a_zero_step():
    raises_for("Range", tp.ShapeError, {}, {"stop": 3, "step": 0}, "step cannot be zero")


@pytest.mark.parametrize(("n", "m", "k"), [(3, 3, 0), (2, 4, 1), (4, 2, -1), (3, 3, 5), (0, 3, 0), (1, 1, 0)],
                         ids=str)
@PER_KIND
def test_eye(dtype, n, m, k):
    got = run("Eye", {}, {"n_rows": n, "n_cols": m, "k": k, "dtype": dtype})
    assert_values(got, np.eye(n, m, k), dtype)


def test_eye_refuses_negative_sizes():
    raises_for("Eye", tp.ShapeError, {}, {"n_rows": -1, "n_cols": 2}, "non-negative")


# -- random -------------------------------------------------------------------------------------
RANDOM = {"RandomUniform": {"low": -2.0, "high": 3.0}, "RandomNormal": {"mean": 1.0, "stddev": 2.0}}


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 5)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_is_deterministic_per_seed(name, dtype, shape):
    attrs = {"shape": shape, "seed": 42, "dtype": dtype, **RANDOM[name]}
    first = run(name, {}, attrs)
    np.testing.assert_array_equal(first, run(name, {}, attrs))
    if first.size > 1:
        assert not np.array_equal(first, run(name, {}, {**attrs, "seed": 43}))
        assert not np.array_equal(first, run(name, {}, {**attrs, "seed": -42}))  # negative seeds work


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_random_uniform_stays_in_its_half_open_interval(dtype):
    got = run("RandomUniform", {}, {"shape": (200_000,), "seed": 0, "dtype": dtype})
    assert got.min() >= 0 and got.max() < 1
    assert abs(got.mean() - 0.5) < 0.01
    narrow = run("RandomUniform", {}, {"shape": (10_000,), "seed": 1, "low": 1.0, "high": 1.0000001,
                                       "dtype": dtype})
    assert narrow.min() >= 1 and narrow.max() < dtype.numpy.type(1.0000001)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_random_normal_has_its_mean_and_stddev(dtype):
    attrs = {"shape": (100_000,), "seed": 0, "mean": 1.0, "stddev": 2.0, "dtype": dtype}
    got = run("RandomNormal", {}, attrs)
    assert abs(got.mean() - 1.0) < 0.03 and abs(got.std() - 2.0) < 0.03


@pytest.mark.parametrize("dtype", (tp.int32, tp.int64, tp.bool_), ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_needs_a_floating_dtype(name, dtype):
    raises_for(name, tp.DTypeError, {}, {"shape": (2,), "seed": 0, "dtype": dtype},
               "floating dtype", dtype.name)
