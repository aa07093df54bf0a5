"""Elementwise ops of the Array API added with their kernels (inverse trigonometric and
hyperbolic functions, tests, remainder, atan2, copysign, hypot, nextafter, logical_xor, the
bitwise ops): signatures as the standard's, dtype promotion (against array-api-strict within a
kind, tensorplug's rules across kinds), weak Python scalars, values against numpy, errors."""

from __future__ import annotations

import inspect

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp

UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "trunc", "isnan", "isinf",
         "isfinite", "signbit", "bitwise_invert"]
BINARY = ["remainder", "atan2", "copysign", "hypot", "nextafter", "logical_xor", "bitwise_and",
          "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
FLOAT_BINARY = ["atan2", "copysign", "hypot", "nextafter"]
FLOAT_UNARY = ["acos", "asin", "atan", "asinh", "atanh", "cosh", "sinh"]
NUMPY = {"acos": np.arccos, "asin": np.arcsin, "atan": np.arctan, "asinh": np.arcsinh, "atanh": np.arctanh,
         "cosh": np.cosh, "sinh": np.sinh, "acosh": np.arccosh, "atan2": np.arctan2, "copysign": np.copysign,
         "hypot": np.hypot, "nextafter": np.nextafter, "remainder": np.remainder}

F32 = np.array([-0.75, -0.2, 0.0, 0.4, 0.9], np.float32)
I32 = np.array([-7, -2, 0, 3, 8], np.int32)


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_signatures_are_the_standards_positional_only_ones(name):
    params = list(inspect.signature(getattr(tp, name)).parameters.values())
    assert len(params) == (1 if name in UNARY else 2)
    assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY and p.default is p.empty for p in params)
    assert name in tp.__all__ and getattr(tp, name).__doc__


@pytest.mark.parametrize("name", FLOAT_UNARY)
@pytest.mark.parametrize("data", [F32, F32.astype(np.float64), np.array([0, 1, -1], np.int32)],
                         ids=["float32", "float64", "int32"])
def test_float_unary_values_and_dtypes(name, data):
    """Floats keep their dtype; integers give the default float (float32)."""
    out = getattr(tp, name)(data)
    assert out.dtype is (tp.float64 if data.dtype == np.float64 else tp.float32)
    with np.errstate(all="ignore"):
        want = NUMPY[name](data.astype(np.float64))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6, atol=1e-7)


def test_acosh_and_scalars():
    np.testing.assert_allclose(tp.acosh([1.0, 2.0, 10.0]).numpy(), np.arccosh([1.0, 2.0, 10.0]), rtol=1e-6)
    assert tp.acos(1).dtype is tp.float32 and tp.acos(1).item() == 0.0
    assert np.isnan(tp.acos(2.0).item()) and tp.atanh(1.0).item() == np.inf


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_tests_give_bools_for_every_numeric_dtype(name):
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -2.5])
    for data in (values, values.astype(np.float32), I32, I32.astype(np.int64)):
        out = getattr(tp, name)(data)
        assert out.dtype is tp.bool and out.shape == data.shape
        np.testing.assert_array_equal(out.numpy(), getattr(np, name)(data))
    with pytest.raises(tp.DTypeError, match=f"{name} does not accept bool tensors"):
        getattr(tp, name)(np.array([True]))


def test_signbit_and_trunc():
    x = np.array([-0.0, 0.0, -1.5, 2.5, -np.inf, np.nan, -np.nan], np.float32)
    np.testing.assert_array_equal(tp.signbit(x).numpy(), np.signbit(x))
    assert tp.signbit(I32).tolist() == (I32 < 0).tolist()  # integers: through the default float
    np.testing.assert_array_equal(tp.trunc(x).numpy(), np.trunc(x))
    assert np.signbit(tp.trunc(np.float32(-0.5)).item())  # -0.0 keeps its sign
    t = tp.asarray(I32)
    assert tp.trunc(t) is t  # integers are already whole
    with pytest.raises(tp.DTypeError, match="trunc does not accept bool tensors"):
        tp.trunc([True])


@pytest.mark.parametrize("name", FLOAT_BINARY + ["remainder"])
@pytest.mark.parametrize(("a", "b"), [
    (np.float32, np.float32), (np.float32, np.float64), (np.float64, np.float32),
    (np.int32, np.int64), (np.int64, np.int64),
], ids=str)
def test_binary_promotion_within_a_kind_is_array_api_strict(name, a, b):
    x, y = np.array([-3.0, 1.5, 4.0, 0.5], a), np.array([2.0, -1.0, 3.0, 2.0], b)
    if name == "remainder" or np.dtype(a).kind == "f":
        want = getattr(xp, name)(xp.asarray(x), xp.asarray(y)).dtype
    else:  # float-only ops on integers: the default float (array-api-strict refuses them)
        want = xp.float32
    out = getattr(tp, name)(x, y)
    assert getattr(xp, out.dtype.name) == want
    with np.errstate(all="ignore"):
        expected = NUMPY[name](x.astype(out.dtype.numpy), y.astype(out.dtype.numpy))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("name", FLOAT_BINARY + ["remainder"])
def test_python_scalars_are_weak(name):
    x = tp.asarray(F32)
    for left, right in [(x, 2.0), (2.0, x), (x, 3), (-1, x)]:
        out = getattr(tp, name)(left, right)
        assert out.dtype is tp.float32, (left, right)
        host = [np.asarray(v, np.float32) if isinstance(v, (int, float)) else F32 for v in (left, right)]
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(out.numpy(), NUMPY[name](*host), rtol=1e-6)
    d = tp.asarray(F32.astype(np.float64))
    assert getattr(tp, name)(d, 2.0).dtype is tp.float64
    # an integer tensor meeting a Python float: the default float (float-only ops: any integers)
    assert getattr(tp, name)(tp.asarray(I32), 2.5).dtype is tp.float32
    assert getattr(tp, name)(tp.asarray(I32), 2).dtype is (tp.int32 if name == "remainder" else tp.float32)


def test_remainder_has_the_sign_of_the_divisor():
    x, y = np.array([7, -7, 7, -7, 0], np.int64), np.array([3, 3, -3, -3, 2], np.int64)
    assert tp.remainder(x, y).tolist() == np.remainder(x, y).tolist() == [1, 2, -2, -1, 0]
    assert tp.remainder(tp.asarray(I32), 4).dtype is tp.int32
    assert tp.remainder(I32, 0).tolist() == [0] * 5  # as floor_divide by 0
    with pytest.raises(tp.DTypeError, match="remainder does not accept bool tensors"):
        tp.remainder([True], [True])


def test_logical_xor_casts_to_bool():
    out = tp.logical_xor([0, 2, 0, -1], [0.0, 0.0, 3.5, 1.0])
    assert out.dtype is tp.bool and out.tolist() == [False, True, True, False]
    assert tp.logical_xor(tp.asarray([True, False]), True).tolist() == [False, True]


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_promotion_and_scalars(name):
    ref = getattr(np, name)
    a, b = I32, np.array([1, 3, -1, 6, 12], np.int64)
    assert getattr(tp, name)(a, b).dtype is tp.int64
    np.testing.assert_array_equal(getattr(tp, name)(a, b).numpy(), ref(a, b))
    out = getattr(tp, name)(tp.asarray(a), 6)
    assert out.dtype is tp.int32 and out.tolist() == ref(a, np.int32(6)).tolist()
    bools = np.array([True, False, True])
    out = getattr(tp, name)(bools, np.array([True, True, False]))
    assert out.dtype is tp.bool and out.tolist() == ref(bools, np.array([True, True, False])).tolist()
    assert getattr(tp, name)(True, tp.asarray(bools)).dtype is tp.bool
    with pytest.raises(tp.DTypeError, match=f"{name} takes integer or bool tensors, got float32"):
        getattr(tp, name)(tp.asarray(a), 1.5)


@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shifts(name):
    ref = np.left_shift if name == "bitwise_left_shift" else np.right_shift
    shifts = np.array([0, 1, 3, 31, 40], np.int64)
    np.testing.assert_array_equal(getattr(tp, name)(I32, shifts).numpy(), ref(I32.astype(np.int64), shifts))
    out = getattr(tp, name)(tp.asarray(I32), 2)
    assert out.dtype is tp.int32 and out.tolist() == ref(I32, np.int32(2)).tolist()
    assert getattr(tp, name)(1, tp.asarray(shifts)).tolist() == ref(1, shifts).tolist()
    with pytest.raises(tp.ShapeError, match=rf"{name}: x2 \(the shift\) must be >= 0, got -2"):
        getattr(tp, name)(I32, -2)
    for bad in ([True], [1.5]):
        with pytest.raises(tp.DTypeError, match=f"{name} takes integer tensors"):
            getattr(tp, name)(bad, bad)
    assert getattr(tp, name)([True], 1).dtype is tp.int64  # bool meets int: integers (as numpy)


def test_bitwise_invert():
    assert tp.bitwise_invert(I32).tolist() == np.invert(I32).tolist()
    assert tp.bitwise_invert(I32).dtype is tp.int32
    assert tp.bitwise_invert([True, False]).tolist() == [False, True]
    with pytest.raises(tp.DTypeError, match="bitwise_invert takes integer or bool tensors, got float32"):
        tp.bitwise_invert([1.5])


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_the_ops_run_on_each_backend(backend):
    with tp.backend_scope(backend):
        out = tp.hypot(tp.atan2(tp.asarray(F32), 1.0), tp.remainder(tp.asarray(I32), 3))
        assert out.backend == backend and out.dtype is tp.float32
        want = np.hypot(np.arctan2(F32, 1.0), np.remainder(I32, 3))
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
        assert (tp.asarray(I32) >> 1 ^ 5).tolist() == ((I32 >> 1) ^ 5).tolist()
