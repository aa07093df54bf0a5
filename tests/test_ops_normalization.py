"""tp.nn's normalization ops against numpy: batch_norm, batch_norm_train's returned moving
averages (and under tp.jit on each backend), moments, layer_norm and
local_response_normalization (TF's formula), and their errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

RNG = np.random.default_rng(0)


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
