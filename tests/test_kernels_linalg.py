"""NumPy backend, MatMul: batched products with broadcasting batch axes against numpy, for every
dtype the spec accepts; empty and size-1 shapes; the spec's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import accepted_dtypes, assert_values, raises_for, run, sample


@pytest.mark.parametrize(("a", "b"), [
    ((2, 3), (3, 4)), ((1, 1), (1, 1)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 4)), ((4, 2, 3), (4, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
    ((0, 2, 2), (2, 2)), ((3, 1), (1, 3)),
], ids=str)
@pytest.mark.parametrize("dtype", accepted_dtypes("MatMul"), ids=lambda d: d.name)
def test_matmul(dtype, a, b):
    x = sample(a, dtype, seed=1)
    y = sample(b, dtype, seed=2)
    wide = np.complex128 if dtype.is_complex else np.float64 if dtype.is_floating else np.int64
    assert_values(run("MatMul", {"x": x, "y": y}), np.matmul(x.astype(wide), y.astype(wide)), dtype)


def test_matmul_float32_stays_float32_and_accurate():
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    got = run("MatMul", {"x": x, "y": x.T.copy()})
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, x.astype(np.float64) @ x.T.astype(np.float64), rtol=1e-4, atol=1e-4)



@pytest.mark.parametrize(("a", "b", "fragments"), [
    ((2, 3), (4, 5), ("(2, 3)", "(4, 5)", "3 (last axis of the first input) != 4")),
    ((2, 2, 3), (3, 3, 4), ("(2,), (3,)", "cannot be broadcast")),
    ((3,), (3, 2), ("at least 2 dimensions", "(3,)")),
    ((2, 3), (3,), ("at least 2 dimensions",)),
], ids=str)
def test_matmul_shape_errors(a, b, fragments):
    raises_for("MatMul", tp.ShapeError, {"x": np.zeros(a, np.float32), "y": np.zeros(b, np.float32)},
               None, *fragments)


def test_matmul_dtype_errors():
    raises_for("MatMul", tp.DTypeError, {"x": np.zeros((2, 2), np.float32), "y": np.zeros((2, 2))},
               None, "float32", "float64")
    raises_for("MatMul", tp.DTypeError, {"x": np.zeros((2, 2), bool), "y": np.zeros((2, 2), bool)},
               None, "got bool")
