"""Complex numbers through the elementwise family, on each backend: real/imag/conj, the
standard's special cases of infinite and NaN parts (against numpy's C99 complex functions and
the standard's stated values), and gradients of complex inputs against jax.grad."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _jax_in_64_bits():
    """jax's own references in complex128, for this module's tests only (a global switch would
    leak into other tests of the same process)."""
    with jax.enable_x64(True):
        yield

INF, NAN = math.inf, math.nan
_PARTS = (0.0, 1.5, INF, NAN)
#: every pair of those parts: where libraries miss the C99 special cases. (Negative zeros and
#: negative parts are left out: XLA still differs from C99 on some of them, e.g. the sign of
#: sqrt(-2 - 0j) and acos(1.5 - 0j), which the Array API suite does not draw.)
NON_FINITE = np.array([complex(a, b) for a in _PARTS for b in _PARTS])
Z = np.array([0.3 + 0.4j, -0.7 + 0.2j, 0.5 - 0.6j])
W = np.array([1.1 - 0.3j, 0.4 + 0.9j, -0.8 + 0.5j])
C = np.array([0.7 - 0.2j, -0.3 + 0.5j, 0.9 + 0.1j])
_JNP = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
        "atanh": "arctanh"}


def _same(got, want):
    """Equal parts, NaN matching NaN and the sign of zeros and infinities kept."""
    got, want = np.asarray(got), np.asarray(want)
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        ok = ~np.isnan(w)
        np.testing.assert_allclose(g[ok], w[ok], rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [tp.complex64, tp.complex128])
def test_real_imag_conj_of_complex(dtype):
    z = (Z * 3).astype(dtype.numpy)
    real = tp.dtypes.real_of(dtype)
    for op, ref, out in ((tp.real, np.real, real), (tp.imag, np.imag, real), (tp.conj, np.conj, dtype),
                         (tp.abs, np.abs, real)):
        got = op(tp.asarray(z))
        assert got.dtype is out
        np.testing.assert_allclose(np.asarray(got), ref(z), rtol=1e-6)


def test_real_imag_conj_of_real_inputs_and_bool_refused():
    x = tp.asarray([1.5, -2.0])
    assert tp.real(x) is x and tp.conj(x) is x
    assert np.array_equal(np.asarray(tp.imag(x)), [0.0, 0.0]) and tp.imag(x).dtype is tp.float32
    for op in (tp.real, tp.imag, tp.conj):
        with pytest.raises(tp.DTypeError, match="bool"):
            op(tp.asarray([True]))
    with pytest.raises(tp.DTypeError, match="complex128"):
        tp.logaddexp(tp.asarray(Z), 1.0)


@pytest.mark.parametrize("name", ["exp", "log", "log1p", "sqrt", "cosh", "sinh", "tanh", "acos", "acosh",
                                  "asinh", "atanh"])
def test_non_finite_parts_as_numpy(name):
    """numpy's complex functions follow C99's special cases (those of the standard)."""
    with np.errstate(all="ignore"):
        want = getattr(np, _JNP.get(name, name))(NON_FINITE)
    _same(getattr(tp, name)(tp.asarray(NON_FINITE)), want)


def test_sign_of_complex_zeros_and_nans():
    z = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(NAN, 1.0), 3 + 4j])
    got = np.asarray(tp.sign(tp.asarray(z)))
    _same(got, [0j, 0j, 0j, complex(NAN, NAN), 0.6 + 0.8j])
    assert not np.signbit(got.real[:3]).any()


def test_expm1_special_cases_of_the_standard():
    z = np.array([complex(INF, 0), complex(-INF, INF), complex(-INF, NAN), complex(NAN, 0),
                  complex(-INF, 1.0), complex(0, 0), complex(-0.0, -0.0)])
    want = np.array([complex(INF, 0), -1 + 0j, -1 + 0j, complex(NAN, 0), -1 + 0j, 0j, complex(-0.0, -0.0)])
    got = np.asarray(tp.expm1(tp.asarray(z)))
    _same(got, want)
    assert np.signbit(got.real[-1]) and np.signbit(got.imag[-1])
    inf_nan = np.asarray(tp.expm1(tp.asarray([complex(INF, INF), complex(INF, NAN)])))
    assert np.all(np.isinf(inf_nan.real)) and np.all(np.isnan(inf_nan.imag))
    small = np.array([1e-9 + 2e-9j, 0.3 - 1.2j])
    np.testing.assert_allclose(np.asarray(tp.expm1(tp.asarray(small))), np.expm1(small), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floor_divide_of_floats_is_numpys_at_the_edges(dtype):
    """numpy's (and Python's) values with infinite, zero and NaN operands, signed zeros too:
    -1.339 // inf is -1.0, inf // -0.168 is nan (the Array API allows this choice)."""
    edges = [INF, -INF, NAN, 0.0, -0.0, 2.0, -2.0, 0.5, -1.339, -0.168, 7.0, 1e30]
    x, y = (np.array(v, dtype) for v in zip(*[(a, b) for a in edges for b in edges]))
    with np.errstate(all="ignore"):
        want = np.floor_divide(x, y)
    got = np.asarray(tp.floor_divide(tp.asarray(x), tp.asarray(y)))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))
    assert got[(x == -1.339) & (y == INF)].tolist() == [-1.0]


def _jax_grad(name, *args):
    f = getattr(jnp, _JNP.get(name, name))
    return jax.grad(lambda *zs: jnp.sum(jnp.real(f(*zs) * C)), argnums=tuple(range(len(args))))(*args)


def _tp_grad(name, *args):
    f = getattr(tp, name)
    return tp.grad(lambda *zs: tp.sum(tp.real(f(*zs) * tp.asarray(C))), argnums=tuple(range(len(args))))(
        *(tp.asarray(a) for a in args))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "expm1",
                                  "log1p", "square", "negative", "reciprocal", "acos", "asin", "atan",
                                  "asinh", "acosh", "atanh", "conj", "sign"])
def test_unary_gradients_of_complex_inputs_are_jaxs(name):
    for want, got in zip(_jax_grad(name, Z), _tp_grad(name, Z)):
        assert got.dtype is tp.complex128
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-6)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow"])
def test_binary_gradients_of_complex_inputs_are_jaxs(name):
    for want, got in zip(_jax_grad(name, Z, W), _tp_grad(name, Z, W)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-6)


@pytest.mark.parametrize("name", ["abs", "real", "imag"])
def test_gradients_of_complex_to_real_kernels_are_jaxs(name):
    weights = np.real(C)
    want = jax.grad(lambda z: jnp.sum(getattr(jnp, name)(z) * weights))(Z)
    got = tp.grad(lambda z: tp.sum(getattr(tp, name)(z) * tp.asarray(weights)))(tp.asarray(Z))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-6)


def test_gradient_of_the_squared_modulus_and_through_a_cast_are_jaxs():
    want = jax.grad(lambda z: jnp.sum(jnp.real(z * jnp.conj(z))))(Z)
    got = tp.grad(lambda z: tp.sum(tp.real(z * tp.conj(z))))(tp.asarray(Z))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-6)
    x = np.array([0.3, -1.2])
    want = jax.grad(lambda v: jnp.sum(jnp.abs(jnp.exp(v.astype(jnp.complex128) * (1 + 2j)))))(x)
    got = tp.grad(lambda v: tp.sum(tp.abs(tp.exp(tp.astype(v, tp.complex128) * (1 + 2j)))))(tp.asarray(x))
    assert got.dtype is tp.float64
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-6)


def test_grad_needs_a_real_output():
    with pytest.raises(tp.AutodiffError, match="real floating output"):
        tp.grad(lambda z: tp.sum(z * z))(tp.asarray(Z))


def test_second_derivative_of_abs_of_complex_inputs_is_jaxs():
    """Abs's gradient conj(z) / |z| differentiates again (a gradient written with sign(z),
    whose derivative is 0, gave 0 here)."""
    weights = np.real(C)
    inner = jax.grad(lambda z: jnp.sum(jnp.abs(z) * weights))
    want = jax.grad(lambda z: jnp.sum(jnp.real(inner(z)) * weights + jnp.imag(inner(z)) ** 2))(Z)
    mine = tp.grad(lambda z: tp.sum(tp.abs(z) * tp.asarray(weights)))
    w = tp.asarray(weights)
    got = tp.grad(lambda z: tp.sum(tp.real(mine(z)) * w + tp.imag(mine(z)) ** 2))(tp.asarray(Z))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-6)
