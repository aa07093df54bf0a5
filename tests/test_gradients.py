"""Gradients of the elementwise kernels against finite differences (first order for every
kernel, higher orders for the smooth ones), the completeness of the gradient registry, and
exact third derivatives."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import find_gradient, list_kernel_specs
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides


def uniform(shape, lo=-2.0, hi=2.0, key="x"):
    """Deterministic float64 samples in [lo, hi), seeded by `key`."""
    rng = np.random.default_rng(zlib.crc32(f"{key}{shape}".encode()))
    return rng.uniform(lo, hi, size=shape)


def away_from_zero(shape, key="x"):
    """Samples with 0.3 <= |x| < 2: clear of the kink at 0."""
    return np.sign(uniform(shape, -1, 1, key) + 1e-9) * uniform(shape, 0.3, 2.0, key + "m")


# Rounding kernels: values clear of integers and of halves, where the functions jump.
STEPPY = np.array([[-1.7, -0.3, 0.2], [1.35, 2.8, 0.65]])

UNARY = [
    pytest.param(tp.negative, uniform((3, 4)), id="negative"),
    pytest.param(tp.abs, away_from_zero((3, 4)), id="abs"),
    pytest.param(tp.sign, away_from_zero((2, 3)), id="sign"),
    pytest.param(tp.square, uniform((3, 4)), id="square"),
    pytest.param(tp.floor, STEPPY, id="floor"),
    pytest.param(tp.ceil, STEPPY, id="ceil"),
    pytest.param(tp.round, STEPPY, id="round"),
    pytest.param(tp.exp, uniform((3, 4)), id="exp"),
    pytest.param(tp.log, uniform((3, 4), 0.5, 3.0), id="log"),
    pytest.param(tp.log1p, uniform((3, 4), -0.5, 2.0), id="log1p"),
    pytest.param(tp.expm1, uniform((3, 4)), id="expm1"),
    pytest.param(tp.sqrt, uniform((3, 4), 0.5, 3.0), id="sqrt"),
    pytest.param(tp.sin, uniform((3, 4), -3, 3), id="sin"),
    pytest.param(tp.cos, uniform((3, 4), -3, 3), id="cos"),
    pytest.param(tp.tanh, uniform((3, 4)), id="tanh"),
    pytest.param(tp.sigmoid, uniform((3, 4), -4, 4), id="sigmoid"),
    pytest.param(lambda x: tp.nn.relu(x), away_from_zero((3, 4)), id="relu"),
    pytest.param(lambda x: tp.run_kernel("Relu", [x]), away_from_zero((3, 4)), id="Relu-kernel"),
    pytest.param(lambda x: tp.clip(x, -0.5, 0.5), np.array([-1.2, -0.4, 0.1, 0.45, 0.7]), id="clip"),
    pytest.param(lambda x: tp.clip(x, min=0.0), away_from_zero((2, 3)), id="clip-min"),
    pytest.param(lambda x: tp.clip(x, max=0.0), away_from_zero((2, 3)), id="clip-max"),
    pytest.param(lambda x: tp.clip(x), uniform((4,)), id="clip-none"),
    pytest.param(tp.trunc, STEPPY, id="trunc"),
    pytest.param(tp.acos, uniform((3, 4), -0.9, 0.9), id="acos"),
    pytest.param(tp.asin, uniform((3, 4), -0.9, 0.9), id="asin"),
    pytest.param(tp.atan, uniform((3, 4), -3, 3), id="atan"),
    pytest.param(tp.acosh, uniform((3, 4), 1.2, 3.0), id="acosh"),
    pytest.param(tp.asinh, uniform((3, 4), -3, 3), id="asinh"),
    pytest.param(tp.atanh, uniform((3, 4), -0.9, 0.9), id="atanh"),
    pytest.param(tp.cosh, uniform((3, 4)), id="cosh"),
    pytest.param(tp.sinh, uniform((3, 4)), id="sinh"),
    # composites of the kernels above
    pytest.param(tp.tan, uniform((3,), -1, 1), id="tan"),
    pytest.param(tp.reciprocal, away_from_zero((3,)), id="reciprocal"),
    pytest.param(tp.log2, uniform((3,), 0.5, 3), id="log2"),
]


@pytest.mark.parametrize(("fn", "x"), UNARY)
def test_unary_first_order(fn, x):
    check_gradients(fn, x)


def test_cast_first_order():
    # float64 -> float32 -> float64: the gradient is 1; float32 rounding needs a wide step
    check_gradients(lambda x: tp.astype(tp.astype(x, tp.float32), tp.float64) * x, uniform((2, 3)),
                    eps=1e-3, atol=1e-4, rtol=1e-4)


def test_cast_gradient_has_the_input_dtype():
    g = tp.grad(lambda x: tp.astype(x, tp.float64) * 3.0)(tp.asarray(2.0, dtype=tp.float32))
    assert g.dtype == tp.float32 and g.item() == 3.0


SMOOTH = ["negative", "square", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tanh",
          "sigmoid", "tan", "reciprocal", "acos", "asin", "atan", "acosh", "asinh", "atanh", "cosh",
          "sinh"]
SMOOTH_UNARY = [p for p in UNARY if p.id in SMOOTH]


@pytest.mark.parametrize(("fn", "x"), SMOOTH_UNARY)
def test_unary_second_order(fn, x):
    check_gradients(fn, x, order=2)


@pytest.mark.parametrize(("fn", "x"), SMOOTH_UNARY)
def test_unary_third_order(fn, x):
    check_gradients(fn, x[:1, :2] if x.ndim == 2 else x[:2], order=3)


# -- binary ----------------------------------------------------------------------------------
BROADCASTS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((2, 3), ())]


def _binary_cases(name, fn, x_domain=(-2, 2), y_domain=(-2, 2), y_away_from_zero=False):
    out = []
    for xs, ys in BROADCASTS:
        x = uniform(xs, *x_domain, key=name + "x")
        y = away_from_zero(ys, key=name + "y") if y_away_from_zero else uniform(ys, *y_domain, key=name + "y")
        out.append(pytest.param(fn, x, y, id=f"{name}-{xs}-{ys}"))
    return out


BINARY = [
    *_binary_cases("add", tp.add),
    *_binary_cases("subtract", tp.subtract),
    *_binary_cases("multiply", tp.multiply),
    *_binary_cases("divide", tp.divide, y_away_from_zero=True),
    *_binary_cases("pow", tp.pow, x_domain=(0.5, 2.0)),
    *_binary_cases("maximum", tp.maximum),
    *_binary_cases("minimum", tp.minimum),
    *_binary_cases("logaddexp", tp.logaddexp),
    *_binary_cases("atan2", tp.atan2, y_away_from_zero=True),
    *_binary_cases("hypot", tp.hypot, y_away_from_zero=True),
    *_binary_cases("remainder", tp.remainder, y_away_from_zero=True),
    *_binary_cases("copysign", lambda x, y: tp.copysign(x, y) * x, y_away_from_zero=True),
    *_binary_cases("nextafter", tp.nextafter),
    pytest.param(tp.maximum, np.array([1.0, 2.0, -3.0, 0.5]), np.array([1.0, 0.0, -3.0, 0.7]),
                 id="maximum-ties"),
    pytest.param(tp.minimum, np.array([1.0, 2.0, -3.0, 0.5]), np.array([1.0, 0.0, -3.0, 0.7]),
                 id="minimum-ties"),
    pytest.param(tp.floor_divide, np.array([3.3, -2.2, 5.5, 7.1]), np.array([2.0, 1.5, 2.0, -3.3]),
                 id="floor_divide"),
    pytest.param(lambda x, y: x * y + x / y - y ** 2.0, uniform((2, 3), key="ops"),
                 away_from_zero((3,), key="ops"), id="operators"),
]


@pytest.mark.parametrize(("fn", "x", "y"), BINARY)
def test_binary_first_order(fn, x, y):
    check_gradients(fn, x, y)


SMOOTH_BINARY = ("add", "subtract", "multiply", "divide", "pow", "atan2", "hypot", "remainder", "copysign",
                 "nextafter")


@pytest.mark.parametrize(("fn", "x", "y"), [p for p in BINARY if p.id.split("-")[0] in SMOOTH_BINARY
                                            and "(2, 1, 4)" in p.id or p.id == "operators"])
def test_binary_second_order(fn, x, y):
    check_gradients(fn, x, y, order=2)


@pytest.mark.parametrize(("fn", "x", "y"), [p for p in BINARY if p.id.split("-")[0] in ("atan2", "hypot")
                                            and "(3, 4)-(4,)" in p.id])
def test_binary_third_order(fn, x, y):
    check_gradients(fn, x[:1], y, order=3)


def test_copysign_and_remainder_gradients_by_definition():
    """copysign: +-1 for x as the signs agree (x's sign bit, -0.0 included), 0 for y;
    remainder: 1 for x, -floor(x / y) for y."""
    x, y = np.array([1.5, -1.5, 2.0, -0.0, 7.5]), np.array([2.0, 2.0, -0.5, -1.0, -2.0])
    gx, gy = tp.grad(lambda a, b: tp.sum(tp.copysign(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.numpy(), np.where(np.signbit(x) == np.signbit(y), 1.0, -1.0))
    np.testing.assert_array_equal(gy.numpy(), 0.0)
    gx, gy = tp.grad(lambda a, b: tp.sum(tp.remainder(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.numpy(), 1.0)
    np.testing.assert_array_equal(gy.numpy(), -np.floor(x / y))


def test_hypot_gradient_at_the_origin_is_zero():
    gx, gy = tp.grad(lambda a, b: tp.sum(tp.hypot(a, b)), argnums=(0, 1))(np.zeros(2), np.array([0.0, 2.0]))
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 1.0])


def test_pow_at_zero_base():
    # d/dx x**y at x = 0 is 0 for y >= 1 (and for y == 0, where x**0 is constant 1); d/dy is 0
    x, y = np.array([0.0, 0.0, 0.0, 1.5]), np.array([2.0, 3.0, 0.0, 3.0])
    check_gradients(tp.pow, x, y, argnums=0)
    gx, gy = tp.grad(lambda a, b: tp.sum(tp.pow(a, b)), argnums=(0, 1))(x, y)
    assert np.all(np.isfinite(gx.numpy())) and np.all(np.isfinite(gy.numpy()))
    np.testing.assert_allclose(gy.numpy()[:3], 0.0)
    check_gradients(tp.pow, np.array([0.0, 2.0]), np.array([2.0, 1.5]), argnums=1)


def test_pow_integer_exponent_negative_base():
    check_gradients(lambda x: tp.pow(x, 3.0), np.array([-1.5, -0.5, 2.0]), order=2)


def test_maximum_ties_split_the_gradient():
    gx, gy = tp.grad(lambda a, b: tp.sum(tp.maximum(a, b)), argnums=(0, 1))(
        np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0]))
    np.testing.assert_array_equal(gx.numpy(), [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(gy.numpy(), [0.5, 1.0, 0.0])


@pytest.mark.parametrize(("cshape", "xshape", "yshape"),
                         [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((4,), (3, 4), ())])
def test_where(cshape, xshape, yshape):
    condition = uniform(cshape, key="cond") > 0
    check_gradients(lambda x, y: tp.where(condition, x, y), uniform(xshape), uniform(yshape, key="y"),
                    order=2)


def test_relu_is_zero_below_zero():
    g = tp.grad(lambda x: tp.sum(tp.run_kernel("Relu", [x])))(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 1.0])


# -- third derivatives, exactly --------------------------------------------------------------
def _sig(x):
    return 1 / (1 + math.exp(-x))


THIRD = [
    (tp.tanh, lambda x: -2 * (1 - math.tanh(x) ** 2) * (1 - 3 * math.tanh(x) ** 2),
     (-1.5, -0.2, 0.0, 0.7, 2.0)),
    (tp.exp, math.exp, (-1.5, 0.0, 0.3, 2.0)),
    (tp.sigmoid, lambda x: _sig(x) * (1 - _sig(x)) * (1 - 6 * _sig(x) + 6 * _sig(x) ** 2),
     (-3.0, -0.5, 0.0, 1.2)),
    (tp.sin, lambda x: -math.cos(x), (-2.0, 0.0, 0.5, 3.0)),
    (tp.log, lambda x: 2 / x ** 3, (0.3, 1.0, 2.5)),
    (tp.atan, lambda x: (6 * x * x - 2) / (1 + x * x) ** 3, (-1.5, 0.0, 0.4, 2.0)),
    (tp.sinh, math.cosh, (-1.5, 0.0, 0.7)),
]


@pytest.mark.parametrize(("fn", "third", "points"), THIRD, ids=[f[0].__name__ for f in THIRD])
@pytest.mark.parametrize("dtype", [tp.float64, tp.float32])
def test_third_derivative_is_exact(fn, third, points, dtype):
    d3 = tp.grad(tp.grad(tp.grad(fn)))
    for p in points:
        got = d3(tp.asarray(p, dtype=dtype))
        assert got.dtype == dtype
        np.testing.assert_allclose(got.item(), third(p), rtol=1e-4 if dtype == tp.float32 else 1e-12,
                                   atol=1e-5 if dtype == tp.float32 else 1e-12)


# -- completeness ----------------------------------------------------------------------------
def test_every_differentiable_kernel_has_a_gradient():
    tp.extend.load_plugins()
    missing = [s.name for s in list_kernel_specs() if s.differentiable and find_gradient(s.name) is None]
    assert not missing, f"differentiable kernels without a gradient: {missing}"


def test_non_differentiable_kernels_have_no_gradient():
    wrongly = [s.name for s in list_kernel_specs() if not s.differentiable and find_gradient(s.name)]
    assert not wrongly
