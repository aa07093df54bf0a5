"""Gradients of the normalization family against finite differences on each backend: the
FusedBatchNorm kernel in all five inputs (per-channel and full-rank parameters) to third order,
batch_norm_train and layer_norm through the batch moments, LRN to third order (which runs
LRNGrad's own gradient) and LRNGrad in each input."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("ps", [(3,), (2, 1, 3)], ids=str)
def test_fused_batch_norm_third_order_in_every_input(ps):
    x = RNG.normal(size=(2, 2, 3))
    scale, offset, mean = RNG.normal(size=ps), RNG.normal(size=ps), RNG.normal(size=ps)
    variance = RNG.uniform(0.5, 2.0, size=ps)
    check_gradients(lambda *a: tp.run_kernel("FusedBatchNorm", list(a), {"epsilon": 0.1}) ** 2,
                    x, scale, offset, mean, variance, order=3)


def test_batch_norm_train_second_order_through_the_moments():
    x, scale, offset = RNG.normal(size=(3, 2, 2)), RNG.normal(size=2), RNG.normal(size=2)
    check_gradients(lambda x, s, o: tp.nn.batch_norm_train(x, np.zeros(2), np.ones(2), o, s, axis=1)[0] ** 2,
                    x, scale, offset, order=2)


@pytest.mark.parametrize("axis", [-1, (1, 2)], ids=str)
def test_layer_norm_third_order(axis):
    x = RNG.normal(size=(2, 2, 3))
    check_gradients(lambda x, s, o: tp.nn.layer_norm(x, s, o, axis=axis) ** 2, x, RNG.normal(size=3),
                    RNG.normal(size=3), order=3)


@pytest.mark.parametrize(("radius", "beta"), [(2, 0.75), (0, 0.5)])
def test_lrn_third_order(radius, beta):
    x = RNG.normal(size=(2, 5))
    check_gradients(lambda x: tp.nn.local_response_normalization(x, radius, 1.5, 0.4, beta) ** 2, x, order=3)


def test_lrn_grad_kernel_second_order_in_dy_and_x():
    attrs = {"depth_radius": 1, "bias": 1.0, "alpha": 0.5, "beta": 0.75}
    x, dy = RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4))
    y = tp.run_kernel("LRN", [tp.asarray(x)], attrs)
    check_gradients(lambda dy, x: tp.run_kernel("LRNGrad", [dy, x, y], attrs) ** 2, dy, x, order=2)
