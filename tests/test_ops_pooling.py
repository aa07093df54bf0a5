"""tp.nn's pooling and normalization ops: max_pool / avg_pool 1-, 2- and 3-D against
jax.lax.reduce_window ('VALID', 'SAME', explicit padding, both layouts), max_pool_with_argmax,
dilation2d, batch_norm, batch_norm_train's returned moving averages, moments, layer_norm and
local_response_normalization against numpy, under tp.jit, and the ops' errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: autouse)

RNG = np.random.default_rng(0)


def _reduce_window(kind, x, window, strides, padding, channels_first=False):
    lead = 2 if channels_first else 1
    w = (1,) * lead + tuple(window) + (1,) * (2 - lead)
    s = (1,) * lead + tuple(strides) + (1,) * (2 - lead)
    pad = padding if isinstance(padding, str) else ((0, 0),) * lead + tuple(padding) + ((0, 0),) * (2 - lead)
    if kind == "max":
        return np.asarray(jax.lax.reduce_window(x, -np.inf, jax.lax.max, w, s, pad))
    total = jax.lax.reduce_window(x, 0.0, jax.lax.add, w, s, pad)
    return np.asarray(total / jax.lax.reduce_window(np.ones_like(x), 0.0, jax.lax.add, w, s, pad))


POOLS = [
    pytest.param((2, 9, 3), (3,), (2,), "SAME", False, id="1d-same"),
    pytest.param((2, 3, 8), (2,), (3,), "VALID", True, id="1d-valid-cf"),
    pytest.param((2, 7, 6, 3), (3, 2), (2, 2), "SAME", False, id="2d-same"),
    pytest.param((1, 2, 5, 6), (2, 3), (1, 2), ((1, 0), (2, 1)), True, id="2d-explicit-cf"),
    pytest.param((1, 4, 5, 3, 2), (2, 2, 2), (2, 1, 2), "SAME", False, id="3d-same"),
]


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize(("shape", "window", "strides", "padding", "cf"), POOLS)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_ops_match_reduce_window(kind, shape, window, strides, padding, cf, backend):
    x = RNG.normal(size=shape)
    fmt = "channels_first" if cf else "channels_last"
    with tp.backend_scope(backend):
        got = getattr(tp.nn, f"{kind}_pool")(x, window, strides, padding, fmt)
    np.testing.assert_allclose(got.numpy(), _reduce_window(kind, x, window, strides, padding, cf), rtol=1e-12)


def test_pool_defaults_and_dtypes():
    x = RNG.normal(size=(1, 4, 4, 2)).astype(np.float32)
    assert tp.nn.max_pool(x, (2, 2)).shape == (1, 3, 3, 2)  # strides 1, 'VALID'
    assert tp.nn.max_pool(x, (2, 2)).dtype is tp.float32
    ints = np.arange(16).reshape(1, 4, 4, 1)
    avg = tp.nn.avg_pool(ints, (2, 2), (2, 2))
    assert avg.dtype is tp.float32 and avg.numpy()[0, 0, 0, 0] == 2.5
    with pytest.raises(tp.DTypeError, match="max_pool: x must be a real floating tensor, got int64"):
        tp.nn.max_pool(ints, (2, 2))


def test_same_average_divides_by_the_real_elements():
    got = tp.nn.avg_pool(np.ones((1, 3, 3, 1)), (3, 3), padding="SAME").numpy()
    np.testing.assert_array_equal(got, np.ones((1, 3, 3, 1)))


def test_max_pool_with_argmax_op():
    x = RNG.normal(size=(2, 4, 5, 3))
    values, indices = tp.nn.max_pool_with_argmax(x, (2, 2), (2, 2), "SAME", include_batch_in_index=True)
    np.testing.assert_array_equal(values.numpy(), _reduce_window("max", x, (2, 2), (2, 2), "SAME"))
    np.testing.assert_array_equal(x.reshape(-1)[indices.numpy()], values.numpy())


def test_dilation2d_op_same_padding():
    x, f = RNG.normal(size=(1, 5, 5, 2)), RNG.normal(size=(3, 3, 2))
    got = tp.nn.dilation2d(x, f, strides=1, padding="SAME", dilations=2).numpy()
    xp = np.pad(x, ((0, 0), (2, 2), (2, 2), (0, 0)), constant_values=-np.inf)
    taps = [xp[:, 2 * i:2 * i + 5, 2 * j:2 * j + 5] + f[i, j] for i in range(3) for j in range(3)]
    want = np.max(taps, axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(("op", "args", "error", "match"), [
    ("max_pool", ((2, 2, 2, 2),), tp.ShapeError, "pooling is 1-, 2- or 3-D"),
    ("max_pool", ((2, 2), None, "same-ish"), tp.ShapeError, "is not 'VALID' or 'SAME'"),
    ("avg_pool", ((2,),), tp.ShapeError, "x must be 3-d for a 1-D window"),
    ("avg_pool", ((2, 2), (1, 2, 3)), tp.ShapeError, "strides .* has 3 entries for 2 spatial axes"),
    ("max_pool", ((2, 2), None, "VALID", "NHWC"), tp.ArgumentError, "data_format must be"),
    ("max_pool", ((2, 2), None, ((0, 0),)), tp.ShapeError, "padding has 1 pairs for 2 spatial axes"),
    ("max_pool", ((5, 5),), tp.ShapeError, "larger than the padded input"),
])
def test_pool_errors(op, args, error, match):
    with pytest.raises(error, match=match):
        getattr(tp.nn, op)(np.zeros((1, 4, 4, 1), np.float32), *args)


# -- normalization ----------------------------------------------------------------------------
def test_batch_norm_and_its_defaults():
    x = RNG.normal(size=(4, 3))
    mean, var, off, scale = RNG.normal(size=3), RNG.uniform(0.5, 2, 3), RNG.normal(size=3), RNG.normal(size=3)
    got = tp.nn.batch_norm(x, mean, var, off, scale, epsilon=1e-2).numpy()
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-2) * scale + off, rtol=1e-12)
    np.testing.assert_allclose(tp.nn.batch_norm(x, mean, var).numpy(), (x - mean) / np.sqrt(var + 1e-3),
                               rtol=1e-12)
    with pytest.raises(tp.ShapeError, match="batch_norm: mean has shape \\(4,\\)"):
        tp.nn.batch_norm(x, np.zeros(4), var)


@pytest.mark.parametrize("axis", [-1, 1])
def test_batch_norm_train_returns_the_new_moving_averages(axis):
    x = RNG.normal(size=(5, 3, 4)) * 2 + 1
    c = x.shape[axis]
    other = tuple(a for a in range(3) if a != axis % 3)
    rm, rv = RNG.normal(size=c), RNG.uniform(0.5, 2, c)
    y, new_mean, new_var = tp.nn.batch_norm_train(x, rm, rv, axis=axis, momentum=0.9, epsilon=1e-5)
    m, v = x.mean(axis=other, keepdims=True), x.var(axis=other, keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - m) / np.sqrt(v + 1e-5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(new_mean.numpy(), 0.9 * rm + 0.1 * m.reshape(-1), rtol=1e-12)
    np.testing.assert_allclose(new_var.numpy(), 0.9 * rv + 0.1 * v.reshape(-1), rtol=1e-12)
    with pytest.raises(tp.ShapeError, match="running_mean has shape"):
        tp.nn.batch_norm_train(x, np.zeros(c + 1), rv, axis=axis)


def test_batch_norm_train_under_jit_on_each_backend():
    x = RNG.normal(size=(6, 2)).astype(np.float32)
    for backend in ("numpy", "jax"):
        with tp.backend_scope(backend):
            step = tp.jit(lambda x, m, v: tp.nn.batch_norm_train(x, m, v, momentum=0.5))
            y, m, v = step(x, np.zeros(2, np.float32), np.ones(2, np.float32))
            np.testing.assert_allclose(m.numpy(), 0.5 * x.mean(0), rtol=1e-5)
            want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
            np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5)


def test_moments_and_layer_norm():
    x = RNG.normal(size=(3, 4, 5)) + 1e4  # a large mean: the variance is computed about it
    m, v = tp.nn.moments(x, (0, 2))
    np.testing.assert_allclose(m.numpy(), x.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(v.numpy(), x.var((0, 2)), rtol=1e-8)
    scale, offset = RNG.normal(size=5), RNG.normal(size=5)
    got = tp.nn.layer_norm(x.astype(np.float32), scale, offset).numpy()
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(got, (x - mu) / np.sqrt(var + 1e-5) * scale + offset, rtol=2e-3, atol=2e-3)
    got = tp.nn.layer_norm(x, axis=(1, 2)).numpy()
    mu, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(got, (x - mu) / np.sqrt(var + 1e-5), rtol=1e-8, atol=1e-8)


def test_local_response_normalization_matches_tf_formula():
    x = RNG.normal(size=(2, 3, 9))
    got = tp.nn.local_response_normalization(x, depth_radius=2, bias=1.0, alpha=0.3, beta=0.75).numpy()
    sq = np.pad(x * x, ((0, 0), (0, 0), (2, 2)))
    total = sum(sq[..., k:k + 9] for k in range(5))
    np.testing.assert_allclose(got, x / (1.0 + 0.3 * total) ** 0.75, rtol=1e-12)
    with pytest.raises(tp.ShapeError, match="depth_radius must be >= 0"):
        tp.nn.local_response_normalization(x, depth_radius=-1)
