"""NumPy backend, reduction kernels: Sum, Prod, Max, Min, ArgMax, ArgMin, Cumsum, Cumprod against
numpy references, with the spec's output dtype (int64 sums of bool/int32) and shape, for every
dtype each spec accepts, every axis form (None, negative, tuples, empty) and edge shapes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import (
    HALF_FLOATS,
    accepted_dtypes,
    assert_values,
    kernel_dtype_cases,
    kit_values,
    per_kind,
    raises_for,
    run,
    sample,
)
from tensorplug.dtypes import is_floating_numpy


def _wide(x: np.ndarray) -> np.ndarray:
    """Values in the reference's accumulator: float64 for floats, int64 for bool and ints."""
    return x.astype(np.float64 if is_floating_numpy(x.dtype) else np.int64)


REDUCTIONS = ("Sum", "Prod", "Max", "Min")  # (values: the kit's references, kit_values)
#: the grids: one dtype per kind, and the half floats, whose accumulations go wrong first
#: (the conformance runs hold every dtype)
GRID = kernel_dtype_cases(["Sum", "Prod"], also=HALF_FLOATS) + kernel_dtype_cases(["Max", "Min"])
AXES = [None, (0,), (-1,), (1,), (0, 2), (2, -3), (0, 1, 2), ()]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize(("name", "dtype"), GRID)
def test_reductions(name, dtype, axis, keepdims):
    x = sample((2, 3, 4), dtype, -2, 2)
    got = run(name, {"x": x}, {"axis": axis, "keepdims": keepdims})
    assert_values(got, kit_values(name, x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("axis", [None, (0,), (-1,), ()], ids=str)
@pytest.mark.parametrize(("name", "dtype"), kernel_dtype_cases(REDUCTIONS))
def test_reductions_of_a_0d_input(name, dtype, axis):
    x = sample((), dtype, seed=7)
    got = run(name, {"x": x}, {"axis": axis, "keepdims": True})
    assert_values(got, _wide(x))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize(("name", "dtype"), kernel_dtype_cases(["EuclideanNorm"], also=HALF_FLOATS))
def test_euclidean_norm(name, dtype, axis, keepdims):
    x = sample((2, 3, 4), dtype, -2, 2)
    got = run(name, {"x": x}, {"axis": axis, "keepdims": keepdims})
    assert_values(got, kit_values(name, x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", [tp.float16, tp.bfloat16], ids=lambda d: d.name)
def test_euclidean_norm_of_half_floats_does_not_overflow_in_their_squares(dtype):
    x = np.full((4,), 300.0, dtype.numpy)  # 300**2 is past float16's largest value
    assert_values(run("EuclideanNorm", {"x": x}, {"axis": None}), np.array(600.0, dtype.numpy))


@pytest.mark.parametrize(("axis", "want_sum", "want_prod"), [
    (None, 0, 1), ((0,), [0, 0, 0], [1, 1, 1]), ((1,), np.zeros(0), np.ones(0)),
], ids=str)
@pytest.mark.parametrize("dtype", per_kind(accepted_dtypes("Sum")), ids=lambda d: d.name)
@pytest.mark.parametrize("name", ["Sum", "Prod"])
def test_sum_and_prod_of_empty_axes_are_their_identities(name, dtype, axis, want_sum, want_prod):
    x = np.zeros((0, 3), dtype.numpy)
    assert_values(run(name, {"x": x}, {"axis": axis}), want_sum if name == "Sum" else want_prod)


def test_max_and_min_over_non_empty_axes_of_an_empty_input():
    x = np.zeros((0, 3), np.float32)
    assert run("Max", {"x": x}, {"axis": (1,)}).shape == (0,)
    assert run("Min", {"x": x}, {"axis": ()}).shape == (0, 3)


def test_sum_of_bool_counts_and_int32_sums_do_not_overflow():
    assert run("Sum", {"x": np.ones(300, bool)}).item() == 300
    big = np.full(4, 2**30, np.int32)
    assert run("Sum", {"x": big}).item() == 2**32
    assert run("Prod", {"x": big[:2]}).item() == 2**60


def test_max_propagates_nan():
    assert np.isnan(run("Max", {"x": np.array([1.0, np.nan, 3.0])}))


@pytest.mark.parametrize("name", ["Max", "Min"])
def test_max_min_over_an_empty_axis_is_a_shape_error(name):
    raises_for(name, tp.ShapeError, {"x": np.zeros((0, 3), np.float32)}, {"axis": (0,)},
               "(0, 3)", "empty axis", "float32[0, 3]")
    raises_for(name, tp.ShapeError, {"x": np.zeros((2, 0), np.float32)}, None, "(2, 0)")


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_refuse_bad_axes(name):
    x = np.zeros((2, 3), np.float32)
    raises_for(name, tp.ShapeError, {"x": x}, {"axis": (2,)}, "axis 2 is out of range", "2-d")
    raises_for(name, tp.ShapeError, {"x": x}, {"axis": (0, -2)}, "names an axis of the 2-d input twice")


# -- ArgMax, ArgMin -----------------------------------------------------------------------------
ARGS = ("ArgMax", "ArgMin")


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2, -3])
@pytest.mark.parametrize(("name", "dtype"), kernel_dtype_cases(ARGS))
def test_arg_reductions(name, dtype, axis, keepdims):
    x = sample((2, 3, 4), dtype, -2, 2)  # few distinct values: ties resolve to the first
    got = run(name, {"x": x}, {"axis": axis, "keepdims": keepdims})
    assert_values(got, kit_values(name, x, axis=axis, keepdims=keepdims), tp.int64)


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("name", sorted(ARGS))
def test_arg_reductions_of_a_0d_input(name, axis):
    assert run(name, {"x": np.float32(3)}, {"axis": axis}).item() == 0


def test_arg_reductions_pick_the_first_of_ties_and_nan():
    assert run("ArgMax", {"x": np.array([1, 3, 3, 0], np.int32)}).item() == 1
    assert run("ArgMin", {"x": np.array([1, 0, 3, 0], np.int32)}).item() == 1
    assert run("ArgMax", {"x": np.array([1.0, np.nan, 3.0])}).item() == 1


@pytest.mark.parametrize("name", sorted(ARGS))
def test_arg_reductions_of_empty_inputs_are_shape_errors(name):
    raises_for(name, tp.ShapeError, {"x": np.zeros((0, 2))}, {"axis": 0}, "axis 0 of shape (0, 2) is empty")
    raises_for(name, tp.ShapeError, {"x": np.zeros((0, 2))}, None, "(0, 2) is empty", "no index to return")
    assert run(name, {"x": np.zeros((0, 2))}, {"axis": 1}).shape == (0,)


# -- Cumsum, Cumprod ----------------------------------------------------------------------------
def _cumulative_ref(op: str, x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
    """Each output element reduces the inputs before it (or after, reversed), itself included
    unless exclusive: written with a mask per position, independently of numpy's accumulate."""
    moved = np.moveaxis(_wide(x), axis, 0)
    n = moved.shape[0]
    out = np.empty_like(moved)
    for i in range(n):
        j = np.arange(n)
        take = (j > i if exclusive else j >= i) if reverse else (j < i if exclusive else j <= i)
        part = moved[take]
        out[i] = part.sum(axis=0) if op == "Cumsum" else part.prod(axis=0)
    return np.moveaxis(out, 0, axis)


@pytest.mark.parametrize(("exclusive", "reverse"), list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize(("name", "dtype"), kernel_dtype_cases(["Cumsum", "Cumprod"], also=HALF_FLOATS))
def test_cumulative(name, dtype, axis, exclusive, reverse):
    x = sample((3, 4), dtype, -2, 2)
    got = run(name, {"x": x}, {"axis": axis, "exclusive": exclusive, "reverse": reverse})
    assert_values(got, _cumulative_ref(name, x, axis, exclusive, reverse))


@pytest.mark.parametrize(("exclusive", "reverse"), list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("shape", [(0,), (1,), (3, 0), (0, 2)], ids=str)
@pytest.mark.parametrize("name", ["Cumsum", "Cumprod"])
def test_cumulative_edge_shapes(name, shape, exclusive, reverse):
    x = sample(shape, tp.int32)
    got = run(name, {"x": x}, {"axis": 0, "exclusive": exclusive, "reverse": reverse})
    assert_values(got, _cumulative_ref(name, x, 0, exclusive, reverse))


@pytest.mark.parametrize(("name", "exclusive", "want"), [
    ("Cumsum", False, 5), ("Cumsum", True, 0), ("Cumprod", False, 5), ("Cumprod", True, 1),
])
def test_cumulative_of_a_0d_input(name, exclusive, want):
    got = run(name, {"x": np.int32(5)}, {"axis": 0, "exclusive": exclusive})
    assert got.shape == () and got.item() == want


def test_cumsum_counts_bools():
    assert run("Cumsum", {"x": np.array([True, False, True])}).tolist() == [1, 1, 2]


def test_cumulative_refuses_an_out_of_range_axis():
    raises_for("Cumsum", tp.ShapeError, {"x": np.zeros((2, 3))}, {"axis": 2}, "axis 2 is out of range")
