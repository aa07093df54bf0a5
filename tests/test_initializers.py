"""tp.nn.initializers: JAX's initializers with explicit seeds, on both backends: shapes and
dtypes, reproducibility, the variance of each variance-scaling variant against the fan formula
(computed here, not by the code under test), bounds, orthogonality, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import ArgumentError, DTypeError, HyperparameterError, ShapeError
from tensorplug.models.normal_quantiles import ndtri

inits = tp.nn.initializers
TRUNCATED_UNIT_VARIANCE = 0.87962566103423978 ** 2  # of a unit normal truncated to [-2, 2]



RANDOM = {
    "uniform": inits.uniform(), "normal": inits.normal(), "truncated_normal": inits.truncated_normal(),
    "glorot_uniform": inits.glorot_uniform(), "glorot_normal": inits.glorot_normal(),
    "he_uniform": inits.he_uniform(), "he_normal": inits.he_normal(),
    "lecun_uniform": inits.lecun_uniform(), "lecun_normal": inits.lecun_normal(),
    "orthogonal": inits.orthogonal(),
}
CONSTANT = {"zeros": (inits.zeros, 0), "ones": (inits.ones, 1), "constant": (inits.constant(-2.5), -2.5)}


@pytest.mark.parametrize("name", RANDOM)
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64, tp.float16])
def test_random_shapes_dtypes_and_seeds(backend, name, dtype):
    init = RANDOM[name]
    x = init((6, 3, 4), dtype, seed=3)
    assert (x.backend, x.shape, x.dtype) == (backend, (6, 3, 4), dtype)
    assert np.all(np.isfinite(np.asarray(x)))
    np.testing.assert_array_equal(np.asarray(init((6, 3, 4), dtype, seed=3)), np.asarray(x))
    assert not np.array_equal(np.asarray(init((6, 3, 4), dtype, seed=4)), np.asarray(x))
    assert init((6, 4), seed=0).dtype == tp.float32


@pytest.mark.parametrize("name", CONSTANT)
@pytest.mark.parametrize("dtype", [tp.float32, tp.int32, tp.float64])
def test_constant_initializers(backend, name, dtype):
    init, value = CONSTANT[name]
    x = init((2, 3), dtype)
    assert (x.backend, x.shape, x.dtype) == (backend, (2, 3), dtype)
    np.testing.assert_array_equal(np.asarray(x), np.full((2, 3), value, dtype.numpy))
    np.testing.assert_array_equal(np.asarray(init(4, dtype, seed=1)), np.full(4, value, dtype.numpy))


def fans(shape):
    """(fan_in, fan_out) of a kernel (..., in, out), written here from the definition."""
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


# name -> (scale, mode, distribution), as jax.nn.initializers defines them
VARIANCE_SCALING = {
    "glorot_uniform": (1.0, "fan_avg", "uniform"), "glorot_normal": (1.0, "fan_avg", "truncated_normal"),
    "xavier_uniform": (1.0, "fan_avg", "uniform"), "xavier_normal": (1.0, "fan_avg", "truncated_normal"),
    "he_uniform": (2.0, "fan_in", "uniform"), "he_normal": (2.0, "fan_in", "truncated_normal"),
    "kaiming_uniform": (2.0, "fan_in", "uniform"), "kaiming_normal": (2.0, "fan_in", "truncated_normal"),
    "lecun_uniform": (1.0, "fan_in", "uniform"), "lecun_normal": (1.0, "fan_in", "truncated_normal"),
}
SHAPES = [(256, 256), (128, 512), (3, 3, 32, 64)]


def expected_variance(scale, mode, shape):
    fan_in, fan_out = fans(shape)
    return scale / {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]


def check_sample(x, variance, distribution):
    """`x`'s mean and variance near 0 and `variance`, within its distribution's bounds."""
    n = x.size
    assert abs(x.mean()) < 5 * math.sqrt(variance / n)
    assert x.var() == pytest.approx(variance, rel=0.05)
    if distribution == "uniform":
        limit = math.sqrt(3 * variance)
        assert -limit <= x.min() and x.max() < limit and x.max() > 0.99 * limit
    elif distribution == "truncated_normal":
        bound = 2 * math.sqrt(variance / TRUNCATED_UNIT_VARIANCE)
        assert -bound <= x.min() and x.max() <= bound and x.max() > 0.99 * bound


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", VARIANCE_SCALING)
def test_variance_scaling_variants(backend, name, shape):
    scale, mode, distribution = VARIANCE_SCALING[name]
    x = np.asarray(getattr(inits, name)()(shape, tp.float64, seed=7))
    check_sample(x, expected_variance(scale, mode, shape), distribution)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
def test_variance_scaling_modes(backend, mode, distribution):
    shape = (2, 2, 64, 32)
    x = np.asarray(inits.variance_scaling(0.5, mode, distribution)(shape, seed=1))
    check_sample(x, expected_variance(0.5, mode, shape), distribution)


def test_variance_scaling_axes(backend):
    # (out, in) as torch lays out a linear layer's weight: fan_in is the last axis
    init = inits.variance_scaling(1.0, "fan_in", "normal", in_axis=-1, out_axis=-2)
    x = np.asarray(init((64, 512), seed=0))
    check_sample(x, 1.0 / 512, "normal")
    # a batch axis counts in neither fan
    x = np.asarray(inits.lecun_normal(batch_axis=0)((8, 128, 64), seed=0))
    check_sample(x, 1.0 / 128, "truncated_normal")


@pytest.mark.parametrize(("init", "variance", "low", "high"), [
    (inits.uniform(), 1e-4 / 12, 0.0, 1e-2),
    (inits.uniform(0.5), 0.25 / 12, 0.0, 0.5),
    (inits.normal(), 1e-4, None, None),
    (inits.normal(3.0), 9.0, None, None),
    (inits.truncated_normal(), 1e-4 * TRUNCATED_UNIT_VARIANCE, -2e-2, 2e-2),
])
def test_uniform_normal_truncated(backend, init, variance, low, high):
    x = np.asarray(init((256, 256), tp.float64, seed=5))
    assert x.var() == pytest.approx(variance, rel=0.05)
    if low is not None:
        assert low <= x.min() and x.max() <= high
        assert x.min() < low + 0.01 * (high - low) and x.max() > high - 0.01 * (high - low)


def test_truncated_normal_bounds_and_variance(backend):
    stats = pytest.importorskip("scipy.stats")
    x = np.asarray(inits.truncated_normal(2.0, lower=-1.0, upper=3.0)((256, 256), tp.float64, seed=2))
    assert x.min() >= -2.0 and x.max() <= 6.0
    assert x.mean() == pytest.approx(2.0 * stats.truncnorm.mean(-1, 3), abs=0.02)
    assert x.var() == pytest.approx(4.0 * stats.truncnorm.var(-1, 3), rel=0.05)


@pytest.mark.parametrize("name", ["truncated_normal", "glorot_normal", "he_normal", "lecun_normal"])
def test_truncated_normals_are_computed_in_float64(backend, name):
    """float32 samples are the float64 ones rounded (ndtri in float32 would err by ~4e-4)."""
    init = RANDOM[name]
    wide = np.asarray(init((64, 64), tp.float64, seed=1))
    np.testing.assert_array_equal(np.asarray(init((64, 64), tp.float32, seed=1)), wide.astype(np.float32))


@pytest.mark.parametrize("dtype", [tp.float32, tp.float64])
def test_ndtri_matches_scipy(backend, dtype):
    special = pytest.importorskip("scipy.special")
    p = np.concatenate([np.linspace(1e-6, 1 - 1e-6, 2001), [1e-10, 0.02425, 0.97575, 0.5]])
    p = p.astype(dtype.numpy)
    want = special.ndtri(p.astype(np.float64))  # at the p the op gets (float32 rounds 1 - 1e-6)
    got = np.asarray(ndtri(tp.asarray(p)))
    tol = 1e-8 if dtype == tp.float64 else 5e-4  # float32's polynomials lose digits near 0.975
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize(("shape", "column_axis"), [
    ((64, 64), -1), ((128, 32), -1), ((32, 128), -1), ((3, 3, 16, 32), -1), ((1, 1, 16, 32), -1),
    ((32, 64), 0), ((4, 5, 6), 1),
])
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_orthogonal(backend, shape, column_axis, scale):
    x = np.asarray(inits.orthogonal(scale, column_axis)(shape, tp.float64, seed=0))
    assert x.shape == shape
    matrix = np.moveaxis(x, column_axis, -1).reshape(-1, shape[column_axis])
    gram = matrix.T @ matrix if matrix.shape[0] >= matrix.shape[1] else matrix @ matrix.T
    np.testing.assert_allclose(gram, scale ** 2 * np.eye(len(gram)), atol=1e-10)


@pytest.mark.jax
def test_agrees_with_jax():
    """The same variance formula and bounds as jax.nn.initializers (values differ: other RNGs)."""
    jax = pytest.importorskip("jax")
    shape = (3, 3, 32, 64)
    for name, (_, _, distribution) in VARIANCE_SCALING.items():
        ours = np.asarray(getattr(inits, name)()(shape, tp.float32, seed=0))
        theirs = np.asarray(getattr(jax.nn.initializers, name)()(jax.random.key(0), shape))
        assert ours.var() == pytest.approx(theirs.var(), rel=0.08), name
        if distribution != "normal":
            assert np.abs(ours).max() == pytest.approx(np.abs(theirs).max(), rel=0.02), name
    theirs = np.asarray(jax.nn.initializers.truncated_normal(0.5)(jax.random.key(0), (256, 256)))
    ours = np.asarray(inits.truncated_normal(0.5)((256, 256), seed=0))
    assert ours.var() == pytest.approx(theirs.var(), rel=0.05)
    theirs = np.asarray(jax.nn.initializers.uniform(0.5)(jax.random.key(0), (256, 256)))
    ours = np.asarray(inits.uniform(0.5)((256, 256), seed=0))
    assert (ours.min() >= 0) and (theirs.min() >= 0) and ours.max() < 0.5 and theirs.max() < 0.5


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: inits.normal(-1.0), HyperparameterError, r"normal: stddev must be >= 0, got -1.0"),
    (lambda: inits.truncated_normal(-0.1), HyperparameterError, r"truncated_normal: stddev must be >= 0"),
    (lambda: inits.truncated_normal(lower=1.0, upper=0.0), HyperparameterError,
     r"truncated_normal: lower must be below upper, got lower=1.0, upper=0.0"),
    (lambda: inits.uniform(-1), HyperparameterError, r"uniform: scale must be >= 0"),
    (lambda: inits.variance_scaling(-1.0, "fan_in", "normal"), HyperparameterError,
     r"variance_scaling: scale must be >= 0"),
    (lambda: inits.variance_scaling(1.0, "fan_sum", "normal"), HyperparameterError,
     r"variance_scaling: mode must be one of fan_in, fan_out, fan_avg; got 'fan_sum'"),
    (lambda: inits.variance_scaling(1.0, "fan_in", "cauchy"), HyperparameterError,
     r"variance_scaling: distribution must be one of truncated_normal, normal, uniform; got 'cauchy'"),
    (lambda: inits.orthogonal(column_axis=1.5), ArgumentError, r"orthogonal: column_axis must be an int"),
    (lambda: inits.constant("a"), ArgumentError, r"constant"),
])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(("init", "shape", "kwargs", "error", "match"), [
    (inits.glorot_uniform(), (5,), {}, ShapeError, r"glorot_uniform: needs a shape of rank >= 2.*\(5,\)"),
    (inits.he_normal(), (), {}, ShapeError, r"he_normal: needs a shape of rank >= 2"),
    (inits.lecun_uniform(), (7,), {}, ShapeError, r"lecun_uniform: needs a shape of rank >= 2"),
    (inits.orthogonal(), (7,), {}, ShapeError, r"orthogonal: needs a shape of rank >= 2"),
    (inits.orthogonal(column_axis=2), (3, 4), {}, ShapeError, r"orthogonal: column_axis=2 is out of range"),
    (inits.glorot_uniform(in_axis=5), (3, 4), {}, ShapeError, r"glorot_uniform: in_axis=5 is out of range"),
    (inits.he_uniform(), (0, 4), {}, ShapeError, r"he_uniform: fan_in is 0 for the shape \(0, 4\)"),
    (inits.normal(), (3,), {"seed": None}, ArgumentError, r"normal: seed is required"),
    (inits.glorot_uniform(), (3, 4), {"seed": 1.5}, ArgumentError, r"glorot_uniform: seed must be an int"),
    (inits.uniform(), (3,), {"seed": True}, ArgumentError, r"uniform: seed must be an int"),
    (inits.zeros, (3,), {"seed": "0"}, ArgumentError, r"zeros: seed must be an int"),
    (inits.he_uniform(), (3, 4), {"seed": 0, "dtype": tp.int32}, DTypeError,
     r"he_uniform: random values need a floating dtype, got int32"),
    (inits.truncated_normal(), (3, 4), {"seed": 0, "dtype": tp.bool}, DTypeError,
     r"truncated_normal: random values need a floating dtype, got bool"),
    (inits.orthogonal(), (3, 4), {"seed": 0, "dtype": tp.complex64}, DTypeError,
     r"orthogonal: random values need a floating dtype, got complex64"),
])
def test_bad_calls(init, shape, kwargs, error, match):
    with pytest.raises(error, match=match):
        init(shape, **{"seed": 0, **kwargs})


def test_orthogonal_fixes_signs_by_rs_diagonal(backend):
    """Q from the QR of the seed's normal matrix, with each column's sign set so that R's
    diagonal is positive (as JAX: Q is then Haar-distributed): Q^T A has a positive diagonal."""
    a = np.asarray(tp.random.normal((16, 16), seed=9, dtype=tp.float64))
    q = np.asarray(inits.orthogonal()((16, 16), tp.float64, seed=9))
    assert np.all(np.diag(q.T @ a) > 0)
    np.testing.assert_allclose(np.triu(q.T @ a), q.T @ a, atol=1e-10)


# -- keys ---------------------------------------------------------------------------------------
JAX_SAME = {  # name -> (ours, jax's factory's arguments): the ones JAX defines the same way
    **{name: ((), name) for name in ("glorot_uniform", "glorot_normal", "he_uniform", "he_normal",
                                      "lecun_uniform", "lecun_normal", "orthogonal")},
    "uniform": ((0.3,), "uniform"), "normal": ((0.2,), "normal"),
    "truncated_normal": ((0.5,), "truncated_normal"),
    "variance_scaling": ((0.7, "fan_out", "normal"), "variance_scaling"),
}


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
@pytest.mark.parametrize("name", JAX_SAME)
@pytest.mark.parametrize("shape", [(24, 10), (3, 3, 8, 16)])
def test_key_values_are_jaxs(backend, name, shape):
    """With the same key, the values of jax.nn.initializers' namesake, to float32 rounding."""
    jax = pytest.importorskip("jax")
    factory_args, jax_name = JAX_SAME[name]
    ours = np.asarray(getattr(inits, name)(*factory_args)(tp.random.key(5), shape))
    theirs = np.asarray(getattr(jax.nn.initializers, jax_name)(*factory_args)(jax.random.PRNGKey(5), shape))
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)


def test_key_values_without_jax(backend):
    """glorot_uniform from PRNGKey(0) on a (2, 3) kernel: jax 0.10's own values, kept here."""
    got = np.asarray(inits.glorot_uniform()(tp.random.key(0), (2, 3)))
    want = np.asarray(tp.random.uniform(tp.random.key(0), (2, 3), tp.float32, -1.0, 1.0)) * np.sqrt(3 / 2.5)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.abs(got).max() < np.sqrt(6 / 5)


@pytest.mark.parametrize("name", RANDOM)
def test_key_forms_agree_and_reproduce(backend, name):
    init, k = RANDOM[name], tp.random.key(11)
    x = np.asarray(init(k, (6, 4)))
    for y in (init(k, (6, 4), tp.float32), init(k, (6, 4), dtype=tp.float32), init((6, 4), key=k),
              init((6, 4), tp.float32, key=k), init((6, 4), dtype=tp.float32, key=k)):
        assert (y.backend, y.dtype) == (backend, tp.float32)
        np.testing.assert_array_equal(np.asarray(y), x)
    assert not np.array_equal(np.asarray(init(tp.random.split(k)[0], (6, 4))), x)
    for dtype in (tp.float64, tp.float16, tp.bfloat16):
        assert init(k, (6, 4), dtype).dtype == dtype


@pytest.mark.parametrize("name", CONSTANT)
def test_constant_initializers_take_and_ignore_a_key(backend, name):
    init, value = CONSTANT[name]
    got = np.asarray(init(tp.random.key(0), (2, 3)))
    np.testing.assert_array_equal(got, np.full((2, 3), value, np.float32))
    np.testing.assert_array_equal(np.asarray(init((2,), tp.float64, key=tp.random.key(1))), np.full(2, value))


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda i: i((3, 4), seed=0, key=tp.random.key(0)), ArgumentError,
     r"glorot_uniform: got both seed=0 and a key; pass one of them"),
    (lambda i: i(tp.random.key(0), (3, 4), seed=1), ArgumentError,
     r"glorot_uniform: got both seed=1 and a key"),
    (lambda i: i((3, 4)), ArgumentError, r"glorot_uniform: seed is required, or a key"),
    (lambda i: i(tp.random.key(0), (3, 4), key=tp.random.key(1)), ArgumentError,
     r"glorot_uniform: got a key first and key= too"),
    (lambda i: i((3, 4), tp.float32, dtype=tp.float64, seed=0), ArgumentError,
     r"glorot_uniform: got the dtype twice"),
    (lambda i: i(tp.random.key(0)), ArgumentError,
     r"glorot_uniform: takes a shape and a dtype after the key"),
    (lambda i: i(tp.random.key(0), (3, 4), tp.float32, 7), ArgumentError, r"glorot_uniform: takes a shape"),
    (lambda i: i(tp.asarray([1.0, 2.0]), (3, 4)), DTypeError, r"glorot_uniform: key must be a uint32 tensor"),
    (lambda i: i((3, 4), key=tp.zeros((3,), dtype=tp.uint32)), ShapeError,
     r"glorot_uniform: key must be a uint32 tensor of shape \(2,\)"),
])
def test_key_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(inits.glorot_uniform())


def test_constant_key_errors():
    with pytest.raises(ArgumentError, match=r"zeros: got both seed=0 and a key"):
        inits.zeros((2,), seed=0, key=tp.random.key(0))
