"""Gradients of the reduction kernels (Sum, Prod, Max, Min, EuclideanNorm, Cumsum, Cumprod)
against finite differences: axis variants, keepdims, zeros for the products, ties for max/min."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides


def uniform(shape, lo=-2.0, hi=2.0, key="x"):
    rng = np.random.default_rng(zlib.crc32(f"{key}{shape}".encode()))
    return rng.uniform(lo, hi, size=shape)


AXES = [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2), ()]
KEEP = [False, True]

# Products: moderate positive and negative values, and inputs with one or several zeros.
WITH_ZEROS = np.array([[2.0, 0.0, 3.0, -1.5], [0.0, 0.0, 1.5, 2.0], [1.2, -0.7, 2.0, 0.5]])

# Max/min: each reduced row has at most two tied extremes (central differences give 1/2
# to each of two ties, matching the equal split; three ties would give 1/2 vs 1/3).
TIED = np.array([[1.0, 3.0, 3.0, -2.0], [2.0, 2.0, 0.5, -1.0], [0.25, -3.0, 1.5, -3.0]])


def _axis_id(axis, keepdims):
    return f"axis={axis}-keepdims={keepdims}"


REDUCTIONS = [
    *(pytest.param(lambda x, a=a, k=k: tp.sum(x, axis=a, keepdims=k), uniform((2, 3, 4)),
                   id="sum-" + _axis_id(a, k)) for a, k in itertools.product(AXES, KEEP)),
    *(pytest.param(lambda x, a=a, k=k: tp.prod(x, axis=a, keepdims=k), uniform((2, 3, 2), 0.5, 1.5),
                   id="prod-" + _axis_id(a, k)) for a, k in itertools.product(AXES, KEEP)),
    *(pytest.param(lambda x, a=a, k=k: tp.max(x, axis=a, keepdims=k), uniform((2, 3, 4)),
                   id="max-" + _axis_id(a, k)) for a, k in itertools.product(AXES, KEEP)),
    *(pytest.param(lambda x, a=a, k=k: tp.min(x, axis=a, keepdims=k), uniform((2, 3, 4)),
                   id="min-" + _axis_id(a, k)) for a, k in itertools.product(AXES, KEEP)),
    *(pytest.param(lambda x, a=a, k=k: tp.run_kernel("EuclideanNorm", [x], {"axis": a, "keepdims": k}),
                   uniform((2, 3, 2)), id="norm-" + _axis_id(a, k))
      for a, k in itertools.product([None, 1, (0, 2)], KEEP)),
    pytest.param(lambda x: tp.sum(x), np.array(1.5), id="sum-0d"),
    pytest.param(lambda x: tp.prod(x), uniform((5,), -1.5, 1.5), id="prod-1d-signed"),
    pytest.param(lambda x: tp.prod(x, axis=1), WITH_ZEROS, id="prod-zeros-axis1"),
    pytest.param(lambda x: tp.prod(x, axis=0), WITH_ZEROS, id="prod-zeros-axis0"),
    pytest.param(lambda x: tp.prod(x), WITH_ZEROS, id="prod-zeros-all"),
    pytest.param(lambda x: tp.prod(x), np.array([2.0, 0.0, 3.0]), id="prod-one-zero"),
    pytest.param(lambda x: tp.max(x, axis=1), TIED, id="max-ties-axis1"),
    pytest.param(lambda x: tp.min(x, axis=1), TIED, id="min-ties-axis1"),
    pytest.param(lambda x: tp.max(x), np.array([[1.0, 4.0], [4.0, 0.0]]), id="max-ties-all"),
    pytest.param(lambda x: tp.min(x, axis=0, keepdims=True), TIED.T, id="min-ties-keepdims"),
    pytest.param(lambda x: tp.mean(x, axis=1), uniform((3, 4)), id="mean"),
    pytest.param(lambda x: tp.var(x, axis=0, correction=1), uniform((4, 3)), id="var"),
    pytest.param(lambda x: tp.std(x), uniform((3, 4)), id="std"),
    pytest.param(lambda x: tp.nn.logsumexp(x, axis=1), uniform((3, 4)), id="logsumexp"),
]


@pytest.mark.parametrize(("fn", "x"), REDUCTIONS)
def test_reduction_first_order(fn, x):
    check_gradients(fn, x)


SECOND = ["sum-axis=(0, 2)-keepdims=False", "prod-axis=None-keepdims=False",
          "prod-axis=(1, 2)-keepdims=True", "prod-zeros-axis1", "prod-zeros-all",
          "max-axis=1-keepdims=False", "min-axis=(0, 2)-keepdims=True", "var", "logsumexp",
          "norm-axis=1-keepdims=True", "norm-axis=None-keepdims=False"]
# (not at ties: there the first derivative jumps, so it has no derivative to check)


@pytest.mark.parametrize(("fn", "x"), [p for p in REDUCTIONS if p.id in SECOND])
def test_reduction_second_order(fn, x):
    check_gradients(fn, x, order=2)


def test_prod_third_order():
    check_gradients(lambda x: tp.prod(x, axis=1), np.array([[1.5, 0.0, -2.0], [0.5, 1.2, 0.7]]),
                    order=3)


def test_euclidean_norm_third_order():
    check_gradients(lambda x: tp.linalg.vector_norm(x, axis=0), uniform((3, 2)), order=3)


def test_euclidean_norm_gradient_at_zero_is_zero():
    # the subgradient 0 (as PyTorch's norm), not the nan of sqrt's derivative at 0
    g = tp.grad(lambda x: tp.sum(tp.linalg.vector_norm(x, axis=1)))(np.array([[0.0, 0.0], [3.0, 4.0]]))
    np.testing.assert_allclose(g.numpy(), [[0.0, 0.0], [0.6, 0.8]], rtol=1e-15, atol=0)


def test_max_ties_split_equally():
    g = tp.grad(lambda x: tp.sum(tp.max(x, axis=1)))(np.array([[1.0, 3.0, 3.0, 3.0], [0.0, 2.0, 1.0, -1.0]]))
    np.testing.assert_allclose(g.numpy(), [[0, 1 / 3, 1 / 3, 1 / 3], [0, 1, 0, 0]])


def test_prod_gradient_with_zeros_is_exact():
    g = tp.grad(lambda x: tp.sum(tp.prod(x, axis=1)))(WITH_ZEROS)
    np.testing.assert_allclose(g.numpy(), [[0, -9, 0, 0], [0, 0, 0, 0],
                                           [-0.7, 1.2, -0.42, -1.68]])


# -- cumulative ------------------------------------------------------------------------------
FLAGS = list(itertools.product([False, True], [False, True]))  # (exclusive, reverse)
CUM_INPUTS = {
    "Cumsum": uniform((3, 4)),
    "Cumprod": uniform((3, 4), 0.5, 1.5),
    "Cumprod-zeros": np.array([[1.5, 0.0, 2.0, 0.5], [0.0, 0.0, 3.0, -1.2], [0.7, 1.3, -0.4, 0.0]]),
}


def _cumulative(kernel, axis, exclusive, reverse):
    def fn(x):
        return tp.run_kernel(kernel, [x], {"axis": axis, "exclusive": exclusive, "reverse": reverse})
    return fn


CUMULATIVE = [
    pytest.param(_cumulative(name.split("-")[0], axis, ex, rev), x,
                 id=f"{name}-axis={axis}-exclusive={ex}-reverse={rev}")
    for name, x in CUM_INPUTS.items() for axis in (0, 1, -1) for ex, rev in FLAGS
] + [
    pytest.param(lambda x: tp.cumulative_sum(x, axis=1), uniform((2, 3)), id="cumulative_sum"),
    pytest.param(lambda x: tp.cumulative_sum(x, axis=0, include_initial=True), uniform((2, 3)),
                 id="cumulative_sum-initial"),
    pytest.param(lambda x: tp.cumulative_prod(x, axis=1), CUM_INPUTS["Cumprod-zeros"],
                 id="cumulative_prod"),
    pytest.param(lambda x: tp.cumulative_prod(x), np.array([2.0, 0.0, 0.5, 0.0, 3.0]),
                 id="cumulative_prod-1d-zeros"),
]


@pytest.mark.parametrize(("fn", "x"), CUMULATIVE)
def test_cumulative_first_order(fn, x):
    check_gradients(fn, x)


@pytest.mark.parametrize(("fn", "x"), [p for p in CUMULATIVE if "axis=1" in p.id and "Cumprod" in p.id])
def test_cumulative_second_order(fn, x):
    check_gradients(fn, x, order=2)


def test_cumsum_third_order_through_cumprod():
    check_gradients(lambda x: tp.cumulative_sum(tp.cumulative_prod(x, axis=0), axis=0),
                    np.array([1.2, 0.0, -0.5, 2.0]), order=3)


ZERO_D = [("Sum", {"axis": None}), ("Prod", {"axis": None}), ("Max", {"axis": None}),
          ("EuclideanNorm", {"axis": None}),
          ("Min", {"axis": (0,), "keepdims": True}), ("Cumsum", {"axis": 0}),
          ("Cumprod", {"axis": -1}), ("Cumprod", {"axis": 0, "exclusive": True}),
          ("Softmax", {"axis": 0}), ("LogSoftmax", {"axis": -1})]


@pytest.mark.parametrize(("kernel", "attrs"), ZERO_D, ids=[f"{k}-{a}" for k, a in ZERO_D])
def test_kernels_on_a_0d_input(kernel, attrs):
    check_gradients(lambda x: tp.run_kernel(kernel, [x], attrs), np.array(1.5), order=2)


@pytest.mark.parametrize(("axis", "kernels"), [
    (None, {"BroadcastTo"}), ((0, 1), {"BroadcastTo"}), (0, {"BroadcastTo"}),
    (1, {"Reshape", "BroadcastTo"}), ((0, 2), {"Reshape", "BroadcastTo"})])
def test_a_sum_over_leading_axes_broadcasts_its_gradient_back_as_it_is(axis, kernels):
    """Without keepdims, a Sum over leading axes (every axis, say) has a gradient that
    broadcasts back with one BroadcastTo; other axes are put back as 1s by a Reshape first."""
    from tensorplug.profiler import count_kernels

    x = tp.asarray(uniform((2, 3, 4)))
    dy = tp.asarray(uniform(np.sum(x.numpy(), axis=axis).shape, key="dy"))
    with count_kernels() as calls:
        (g,) = tp.vjp(lambda v: tp.sum(v, axis=axis), x)[1](dy)
    assert {k for k, _ in calls.counts} - {"Sum"} == kernels
    want = np.broadcast_to(np.expand_dims(dy.numpy(), (0, 1, 2) if axis is None else axis), x.shape)
    np.testing.assert_array_equal(g.numpy(), want)
