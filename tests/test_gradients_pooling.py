"""Gradients of the pooling family against finite differences, to second order (third where
the function is smooth in the differentiated input: the Grad kernels are linear in dy), on each
backend: through the ops (max_pool, avg_pool 1-3-D, max_pool_with_argmax, dilation2d) and
through the backward kernels themselves."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")


def distinct(shape, seed=0):
    """Float64 values at least 0.1 apart (a random permutation of a grid): no ties, and finite
    differences never move a maximum."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.1 - 0.05 * n).reshape(shape)


POOLS = [
    pytest.param((1, 5, 2), dict(window_shape=(3,), strides=(2,), padding="SAME"), id="1d-same"),
    pytest.param((1, 4, 3, 2), dict(window_shape=(2, 2), strides=(1, 2), padding="SAME"), id="2d-same"),
    pytest.param((1, 2, 3, 4), dict(window_shape=(2, 3), strides=1, padding=((1, 0), (1, 1)),
                                    data_format="channels_first"), id="2d-cf-explicit"),
    pytest.param((1, 2, 3, 2, 1), dict(window_shape=(2, 2, 2), strides=(1, 2, 1), padding="VALID"), id="3d"),
]


@pytest.mark.parametrize(("shape", "kw"), POOLS)
@pytest.mark.parametrize("op", ["max_pool", "avg_pool"])
def test_pool_second_order(op, shape, kw):
    pool = getattr(tp.nn, op)
    # squared, so that the second derivative reaches the Grad kernels' own gradients
    check_gradients(lambda x: tp.square(pool(x, **kw)), distinct(shape), order=2)


@pytest.mark.parametrize("op", ["max_pool", "avg_pool"])
def test_pool_third_order(op):
    pool = getattr(tp.nn, op)
    check_gradients(lambda x: pool(x, (2, 2), padding="SAME") ** 3, distinct((1, 3, 3, 1)), order=3)


def _grad_kernel(name, dims):
    attrs = dict(filter_size=(2,) * dims, strides=(1,) * dims, pad=((1, 0),) * dims,
                 data_format="channels_last")
    x = tp.asarray(distinct((1,) + (3,) * dims + (1,), seed=1))
    y = tp.run_kernel(name.replace("Grad", ""), [x], attrs)
    inputs = [x, y] if name.startswith("Max") else [x]
    return (lambda dy: tp.run_kernel(name, [dy, *inputs], attrs) ** 2), distinct(y.shape, seed=2)


@pytest.mark.parametrize("name", ["MaxPoolGrad", "AvgPoolGrad", "MaxPool3DGrad", "AvgPool3DGrad"])
def test_grad_kernels_to_high_order_in_dy(name):
    f, dy = _grad_kernel(name, 3 if "3D" in name else 2)
    check_gradients(f, dy, order=2 if "3D" in name else 3)


def test_max_pool_grad_kernel_has_zero_gradient_in_its_other_inputs():
    attrs = dict(filter_size=(2, 2), strides=(1, 1), pad=((0, 0), (0, 0)))
    x = distinct((1, 3, 3, 1))
    y = tp.nn.max_pool(x, (2, 2))
    dy = tp.ones_like(y)
    gx, gy = tp.grad(lambda x, y: tp.sum(tp.run_kernel("MaxPoolGrad", [dy, x, y], attrs) ** 2),
                     argnums=(0, 1))(tp.asarray(x), y)
    assert not np.any(gx.numpy()) and not np.any(gy.numpy())


def test_max_pool_with_argmax_values_second_order():
    check_gradients(lambda x: tp.square(tp.nn.max_pool_with_argmax(x, (2, 2), (2, 1), "SAME")[0]),
                    distinct((1, 4, 3, 2)), order=2)


@pytest.mark.parametrize(("kw", "order"), [
    (dict(), 3), (dict(strides=(2, 1), padding="SAME", dilations=(1, 2)), 2)], ids=["valid", "same"])
def test_dilation2d_high_order(kw, order):
    x, f = distinct((1, 4, 4, 2)), distinct((2, 2, 2), seed=3) * 0.37
    check_gradients(lambda x, f: tp.nn.dilation2d(x, f, **kw) ** 3, x, f, order=order)
