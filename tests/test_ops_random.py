"""tp.random: shapes, dtypes, determinism per seed, value ranges and moments, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

SAMPLERS = [
    ("uniform", lambda shape, **kw: tp.random.uniform(shape, **kw)),
    ("normal", lambda shape, **kw: tp.random.normal(shape, **kw)),
]
IDS = [name for name, _ in SAMPLERS]


def test_namespace():
    assert set(tp.random.__all__) == {"uniform", "normal", "categorical", "key", "split", "fold_in", "bits",
                                      "bernoulli", "exponential", "gumbel", "truncated_normal", "randint",
                                      "permutation", "choice", "gamma", "loggamma", "beta"}
    assert "random" in tp.__all__ and "nn" in tp.__all__


@pytest.mark.parametrize("name,sample", SAMPLERS, ids=IDS)
@pytest.mark.parametrize(
    "shape,expected", [((2, 3), (2, 3)), (4, (4,)), ((), ()), ((0, 5), (0, 5)), ([1], (1,))]
)
def test_shape_and_default_dtype(name, sample, shape, expected):
    out = sample(shape, seed=0)
    assert out.shape == expected
    assert out.dtype is tp.float32


@pytest.mark.parametrize("name,sample", SAMPLERS, ids=IDS)
@pytest.mark.parametrize("dtype", [tp.float64, "float32", np.float64])
def test_dtype(name, sample, dtype):
    out = sample((3,), seed=1, dtype=dtype)
    assert out.dtype is tp.dtypes.as_dtype(dtype)


@pytest.mark.parametrize("name,sample", SAMPLERS, ids=IDS)
def test_same_seed_same_values_other_seed_other_values(name, sample):
    a, b, c = sample((100,), seed=7), sample((100,), seed=7), sample((100,), seed=8)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


def test_uniform_range_and_moments():
    x = tp.random.uniform((20000,), seed=3, low=-2.0, high=4.0).numpy()
    assert x.min() >= -2.0 and x.max() < 4.0
    np.testing.assert_allclose(x.mean(), 1.0, atol=0.1)
    np.testing.assert_allclose(x.var(), 36 / 12, rtol=0.05)


def test_normal_moments():
    x = tp.random.normal((20000,), seed=4, mean=3.0, stddev=0.5, dtype=tp.float64).numpy()
    np.testing.assert_allclose(x.mean(), 3.0, atol=0.02)
    np.testing.assert_allclose(x.std(), 0.5, rtol=0.05)


@pytest.mark.parametrize("name,sample", SAMPLERS, ids=IDS)
@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({}, TypeError, r"seed"),
        ({"seed": None}, tp.DTypeError, r"seed must be an int, got None; pass an explicit seed"),
        ({"seed": 1.5}, tp.DTypeError, r"seed must be an int, got 1.5"),
        ({"seed": True}, tp.DTypeError, r"seed must be an int, got True"),
        ({"seed": 0, "dtype": tp.int32}, tp.DTypeError, r"random values need a floating dtype, got int32"),
        ({"seed": 0, "dtype": "complex64"}, tp.DTypeError, r"random values need a floating dtype, got "
                                                             r"complex64"),
        ({"seed": 0, "dtype": "datetime64[s]"}, tp.DTypeError, r"not supported"),
    ],
)
def test_argument_errors(name, sample, kwargs, error, match):
    with pytest.raises(error, match=match):
        sample((2,), **kwargs)


@pytest.mark.parametrize("name,sample", SAMPLERS, ids=IDS)
def test_shape_errors(name, sample):
    with pytest.raises(tp.ShapeError, match=rf"{name}: shape \(2, -1\) has a negative size"):
        sample((2, -1), seed=0)
    with pytest.raises(tp.ArgumentError, match=rf"{name}: shape \(2.5,\) holds 2.5; each size must be"):
        sample((2.5,), seed=0)


def test_seed_accepts_numpy_ints():
    a = tp.random.uniform((3,), seed=np.int64(5))
    b = tp.random.uniform((3,), seed=5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("normalized", [False, True], ids=["logits", "probabilities"])
def test_a_row_of_zero_probabilities_draws_class_0_and_leaves_the_other_rows_right(backend, normalized):
    # (as jax and torch: numpy's kernel once read the rows after such a row wrongly, drawing -3)
    p = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    with np.errstate(divide="ignore"):
        logits = p if normalized else np.log(p)
    got = tp.run_kernel("Multinomial", {"logits": tp.asarray(logits)},
                        {"num_samples": 64, "seed": 3, "normalized": normalized}).numpy()
    assert set(got[0]) <= {0, 1} and (got[1] == 0).all() and (got[2] == 2).all() and (got[3] == 1).all()
