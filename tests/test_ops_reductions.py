"""Reduction ops against numpy: values, dtypes, axis/keepdims forms, edge shapes, errors."""

from __future__ import annotations

import inspect

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

RNG = np.random.default_rng(0)
F32 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
I32 = RNG.integers(-5, 5, (3, 4)).astype(np.int32)
I64 = RNG.integers(-5, 5, (3, 4)).astype(np.int64)
B = RNG.random((3, 4)) > 0.5

AXES = [None, 0, 1, -1, (0, 1), (-1, 0), ()]


def _close(result: tp.Tensor, expected: np.ndarray, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    got = result.numpy()
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


# -- sum / prod ---------------------------------------------------------------------------------
@pytest.mark.parametrize("op,ref", [(tp.sum, np.sum), (tp.prod, np.prod)])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_prod_float(op, ref, axis, keepdims):
    out = op(F32, axis=axis, keepdims=keepdims)
    assert out.dtype is tp.float32
    _close(out, ref(F32, axis=axis, keepdims=keepdims), rtol=1e-4)


@pytest.mark.parametrize("op,ref", [(tp.sum, np.sum), (tp.prod, np.prod)])
@pytest.mark.parametrize("data", [I32, I64, B], ids=["int32", "int64", "bool"])
def test_sum_prod_int_and_bool_give_int64(op, ref, data):
    out = op(data, axis=0)
    assert out.dtype is tp.int64
    np.testing.assert_array_equal(out.numpy(), ref(data, axis=0))


@pytest.mark.parametrize("op", [tp.sum, tp.prod])
def test_sum_prod_dtype_argument(op):
    out = op(I32, dtype=tp.float64)
    assert out.dtype is tp.float64
    assert out.shape == ()


@pytest.mark.parametrize("op, ref", [(tp.cumulative_sum, np.cumsum), (tp.cumulative_prod, np.cumprod)])
def test_cumulative_of_small_ints_with_their_own_dtype_keep_it(op, ref):
    data = np.array([[5, 5, 6], [100, 3, -2]], dtype=np.int8)
    out = op(tp.asarray(data), axis=1, dtype=tp.int8)
    assert out.dtype is tp.int8
    np.testing.assert_array_equal(out.numpy(), ref(data, axis=1, dtype=np.int8))


@pytest.mark.parametrize("op, ref", [(tp.sum, np.sum), (tp.prod, np.prod)])
@pytest.mark.parametrize("axis", [None, (-1,), 0])
def test_sum_prod_of_small_ints_with_their_own_dtype_keep_it(op, ref, axis):
    data = np.array([[5, 5, 6], [100, 3, -2]], dtype=np.int8)
    out = op(tp.asarray(data), axis=axis, dtype=tp.int8, keepdims=True)
    expected = ref(data, axis=axis, dtype=np.int8, keepdims=True)
    assert out.dtype is tp.int8
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize(
    "op,ref", [(tp.sum, np.sum), (tp.prod, np.prod), (tp.max, np.max), (tp.min, np.min), (tp.mean, np.mean)]
)
def test_zero_d_input(op, ref):
    out = op(np.float32(3.5))
    _close(out, ref(np.float32(3.5)))


@pytest.mark.parametrize("op,expected", [(tp.sum, 0.0), (tp.prod, 1.0)])
def test_empty_reductions_give_identity(op, expected):
    out = op(np.zeros((0, 3), np.float32), axis=0)
    np.testing.assert_array_equal(out.numpy(), np.full(3, expected, np.float32))


def test_axis_empty_tuple_keeps_values():
    out = tp.sum(F32, axis=())
    _close(out, F32)
    assert tp.sum(I32, axis=()).dtype is tp.int64
    assert tp.max(F32, axis=()).shape == F32.shape


# -- max / min ----------------------------------------------------------------------------------
@pytest.mark.parametrize("op,ref", [(tp.max, np.max), (tp.min, np.min)])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("data", [F32, I64], ids=["f32", "i64"])
def test_max_min(op, ref, axis, data):
    out = op(data, axis=axis, keepdims=True)
    assert out.dtype.name == data.dtype.name
    _close(out, ref(data, axis=axis, keepdims=True))


@pytest.mark.parametrize("op", [tp.max, tp.min])
def test_max_min_empty_axis_is_shape_error(op):
    message = rf"{op.__name__}: cannot reduce over the empty axis 0 of shape \(0, 3\)"
    with pytest.raises(tp.ShapeError, match=message):
        op(np.zeros((0, 3), np.float32), axis=0)
    assert op(np.zeros((0, 3), np.float32), axis=1).shape == (0,)


@pytest.mark.parametrize("op", [tp.max, tp.min])
def test_max_min_refuse_bool(op):
    with pytest.raises(tp.DTypeError, match=f"{op.__name__} does not accept bool"):
        op(B)


# -- mean / var / std ---------------------------------------------------------------------------
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean(axis, keepdims):
    out = tp.mean(F32, axis=axis, keepdims=keepdims)
    assert out.dtype is tp.float32
    _close(out, np.mean(F32, axis=axis, keepdims=keepdims))


def test_mean_of_ints_is_default_float():
    out = tp.mean(I64, axis=1)
    assert out.dtype is tp.float32
    _close(out, I64.mean(axis=1).astype(np.float32))


def test_mean_of_empty_is_nan():
    out = tp.mean(np.zeros((0,), np.float32))
    assert np.isnan(out.item())


@pytest.mark.parametrize("op,ref", [(tp.var, np.var), (tp.std, np.std)])
@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
@pytest.mark.parametrize("correction", [0, 1, 0.5])
def test_var_std(op, ref, axis, correction):
    out = op(F32, axis=axis, correction=correction)
    _close(out, ref(F32.astype(np.float64), axis=axis, ddof=correction), rtol=1e-4)


@pytest.mark.parametrize("op", [tp.var, tp.std])
def test_var_std_keepdims_and_dtype(op):
    out = op(I32, axis=0, keepdims=True)
    assert out.shape == (1, 4) and out.dtype is tp.float32
    out64 = op(F32.astype(np.float64), axis=1)
    assert out64.dtype is tp.float64


def test_var_without_degrees_of_freedom_is_nan():
    assert np.isnan(tp.var([1.0], correction=1).item())


# -- argmax / argmin ----------------------------------------------------------------------------
@pytest.mark.parametrize("op,ref", [(tp.argmax, np.argmax), (tp.argmin, np.argmin)])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(op, ref, axis, keepdims):
    out = op(F32, axis=axis, keepdims=keepdims)
    assert out.dtype is tp.int64
    np.testing.assert_array_equal(out.numpy(), ref(F32, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("op,ref", [(tp.argmax, np.argmax), (tp.argmin, np.argmin)])
def test_argmax_first_of_ties_and_bool(op, ref):
    data = np.array([[1, 3, 3], [2, 2, 0]], np.int32)
    np.testing.assert_array_equal(op(data, axis=1).numpy(), ref(data, axis=1))
    np.testing.assert_array_equal(op(B, axis=0).numpy(), ref(B, axis=0))


@pytest.mark.parametrize("op", [tp.argmax, tp.argmin])
def test_argmax_empty_is_shape_error(op):
    with pytest.raises(tp.ShapeError, match=f"{op.__name__}: the input of shape \\(0,\\) is empty"):
        op(np.zeros(0, np.float32))
    with pytest.raises(tp.ShapeError, match=f"{op.__name__}: axis 0 of shape \\(0, 2\\) is empty"):
        op(np.zeros((0, 2), np.float32), axis=0)


def test_argmax_zero_d():
    assert tp.argmax(np.float32(2.0)).item() == 0
    assert tp.argmax(np.float32(2.0), axis=0).item() == 0


# -- cumulative ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "op,ref,initial", [(tp.cumulative_sum, np.cumsum, 0), (tp.cumulative_prod, np.cumprod, 1)]
)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative(op, ref, initial, axis, include_initial):
    data = F32[0]
    expected = ref(data, axis=axis)
    if include_initial:
        pad = [(0, 0)] * data.ndim
        pad[axis] = (1, 0)
        expected = np.pad(expected, pad, constant_values=initial)
    out = op(data, axis=axis, include_initial=include_initial)
    assert out.dtype is tp.float32
    _close(out, expected, rtol=1e-5)


@pytest.mark.parametrize("op,ref", [(tp.cumulative_sum, np.cumsum), (tp.cumulative_prod, np.cumprod)])
def test_cumulative_1d_default_axis_and_int_dtype(op, ref):
    data = np.array([1, 2, 3, 4], np.int32)
    out = op(data)
    assert out.dtype is tp.int64
    np.testing.assert_array_equal(out.numpy(), ref(data))


def test_cumulative_matches_array_api_strict():
    data = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    ref = xp.cumulative_sum(xp.asarray(data), axis=1, include_initial=True)
    _close(tp.cumulative_sum(data, axis=1, include_initial=True), np.asarray(ref))


@pytest.mark.parametrize("op", [tp.cumulative_sum, tp.cumulative_prod])
def test_cumulative_errors(op):
    with pytest.raises(tp.ShapeError, match=f"{op.__name__}: axis=None is only allowed for 1-d"):
        op(F32)
    with pytest.raises(tp.ShapeError, match=f"{op.__name__} needs an input with at least one dimension"):
        op(np.float32(1.0))


# -- any / all ----------------------------------------------------------------------------------
@pytest.mark.parametrize("op,ref", [(tp.any, np.any), (tp.all, np.all)])
@pytest.mark.parametrize(
    "data", [B, I64, F32[0], np.zeros((0, 4), bool)], ids=["bool", "int", "float", "empty"]
)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_any_all(op, ref, data, axis, keepdims):
    out = op(data, axis=axis, keepdims=keepdims)
    assert out.dtype is tp.bool
    np.testing.assert_array_equal(out.numpy(), ref(data, axis=axis, keepdims=keepdims))


# -- axis errors and promotion against array_api_strict ----------------------------------------
@pytest.mark.parametrize("op", [tp.sum, tp.prod, tp.max, tp.min, tp.mean, tp.var, tp.std, tp.any, tp.all])
def test_bad_axis_names_op_axis_and_ndim(op):
    with pytest.raises(tp.ShapeError, match=rf"{op.__name__}: axis 3 is out of range for a 3-d input"):
        op(F32, axis=3)
    with pytest.raises(
        tp.ShapeError, match=f"{op.__name__}: axis \\(0, -3\\) names an axis of the 3-d input twice"
    ):
        op(F32, axis=(0, -3))


@pytest.mark.parametrize("op", [tp.argmax, tp.argmin])
def test_bad_axis_arg(op):
    with pytest.raises(tp.ShapeError, match=rf"{op.__name__}: axis -4 is out of range for a 3-d input"):
        op(F32, axis=-4)


# the standard refuses an integer mean (tensorplug promotes it to the default float; tested above)
@pytest.mark.parametrize(
    ("name", "dtype"),
    [(n, d) for n in ["sum", "prod", "max", "min", "mean"] for d in ["int32", "int64", "float32", "float64"]
     if not (n == "mean" and d.startswith("int"))],
)
def test_result_dtype_matches_array_api_strict(name, dtype):
    data = np.arange(1, 7, dtype=dtype).reshape(2, 3)
    ref = getattr(xp, name)(xp.asarray(data), axis=0)
    out = getattr(tp, name)(data, axis=0)
    assert out.dtype.numpy == np.asarray(ref).dtype
    np.testing.assert_allclose(out.numpy(), np.asarray(ref))


# -- gradients of the composed reductions -------------------------------------------------------
@pytest.mark.parametrize(
    "f",
    [
        lambda x: tp.mean(x, axis=1),
        lambda x: tp.var(x, axis=(0, 2), correction=1),
        lambda x: tp.std(x, axis=-1, keepdims=True),
        lambda x: tp.cumulative_sum(x, axis=1, include_initial=True),
    ],
    ids=["mean", "var", "std", "cumsum_initial"],
)
def test_composed_reductions_are_differentiable(f):
    check_gradients(f, F32.astype(np.float64), order=2)


# -- positional parameters, as numpy takes them -----------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin",
                                  "any", "all", "cumulative_sum", "cumulative_prod"])
def test_parameters_after_x_may_be_positional(name):
    """tp.sum(x, 1) is tp.sum(x, axis=1) (numpy's own positional call where it has one); the
    order of the parameters is the standard's (its keyword-only ones, in order)."""
    op = getattr(tp, name)
    params = [p.name for p in inspect.signature(op).parameters.values()]
    assert params == [p.name for p in inspect.signature(getattr(xp, name)).parameters.values()]
    x = tp.asarray(F32)
    _close(op(x, 1), op(x, axis=1).numpy())
    ref = {"cumulative_sum": np.cumsum, "cumulative_prod": np.cumprod}.get(name, getattr(np, name, None))
    if ref is not None:
        _close(op(x, 1), ref(F32, 1), rtol=1e-4)
    if "keepdims" in params and name not in ("argmax", "argmin"):
        position = params.index("keepdims")
        args = [x, 1] + [None] * (position - 2) + [True]
        if name in ("var", "std"):
            args[2] = 0.0  # correction
        _close(op(*args), op(x, axis=1, keepdims=True).numpy())
