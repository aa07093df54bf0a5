"""NumPy backend, Softmax and LogSoftmax: values against float64 references, dtype kept, stable
for large inputs, every axis, edge shapes and the spec's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, kernel_dtype_cases, kit_values, raises_for, run, sample

REFS = ("Softmax", "LogSoftmax")  # (values: the kit's references, kit_values)
CASES = kernel_dtype_cases(REFS)


@pytest.mark.parametrize(("shape", "axis"), [
    ((5,), 0), ((5,), -1), ((2, 3), 0), ((2, 3), 1), ((2, 3, 4), -2), ((1,), 0), ((3, 1), 1),
], ids=str)
@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_softmax_values(name, dtype, shape, axis):
    x = sample(shape, dtype, -5, 5)
    got = run(name, {"x": x}, {"axis": axis})
    assert_values(got, kit_values(name, x, axis=axis), dtype)


@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_softmax_rows_sum_to_one(name, dtype):
    half = tp.finfo(dtype).bits == 16  # (a few ulps of float16 and bfloat16 are coarse: a narrower range)
    got = run(name, {"x": sample((4, 6), dtype, *((-4, 4) if half else (-20, 20)))}, {"axis": 1})
    probs = got if name == "Softmax" else np.exp(got.astype(np.float64))
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=32 * tp.finfo(dtype).eps if half else 1e-6)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("offset", [1000.0, -1000.0, "max/8"])
@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_softmax_is_stable_for_large_inputs(name, dtype, offset):
    offset = tp.finfo(dtype).max / 8 if offset == "max/8" else offset
    x = (np.array([0.0, 1.0, 2.0]) * max(1.0, abs(offset) * 1e-30) + offset).astype(dtype.numpy)
    got = run(name, {"x": x})
    assert np.all(np.isfinite(got))
    assert_values(got, kit_values(name, x, axis=-1), dtype)


def test_log_softmax_keeps_precision_where_softmax_underflows():
    got = run("LogSoftmax", {"x": np.array([0.0, -1000.0], np.float32)})
    np.testing.assert_allclose(got, [0.0, -1000.0], rtol=1e-6)


@pytest.mark.parametrize(("name", "want"), [("Softmax", 1.0), ("LogSoftmax", 0.0)])
@pytest.mark.parametrize("axis", [0, -1])
def test_softmax_of_a_0d_input(name, want, axis):
    assert run(name, {"x": np.float32(7)}, {"axis": axis}).item() == want


@pytest.mark.parametrize(("shape", "axis"), [((0,), 0), ((2, 0), 1), ((0, 3), 1)], ids=str)
@pytest.mark.parametrize("name", sorted(REFS))
def test_softmax_of_empty_inputs(name, shape, axis):
    assert run(name, {"x": np.zeros(shape, np.float32)}, {"axis": axis}).shape == shape


@pytest.mark.parametrize("name", sorted(REFS))
def test_softmax_errors(name):
    raises_for(name, tp.DTypeError, {"x": np.zeros(3, np.int64)}, None, "float32 or float64", "got int64")
    raises_for(name, tp.ShapeError, {"x": np.zeros((2, 3), np.float32)}, {"axis": 2},
               "axis 2 is out of range")
