"""Gradients of GatherNd, ScatterNd, TensorScatterUpdate and UnsortedSegmentSum/Max/Min (and of
segment_mean, composed from them) against finite differences, to second order (third for the
linear ones); Max/Min split dy among ties as Max's gradient does."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")


def uniform(shape, key="x"):
    return np.random.default_rng(zlib.crc32(f"{key}{shape}".encode())).uniform(-2, 2, size=shape)


IDX = np.array([[1, 2], [0, 0], [1, 2]])  # a repeated row accumulates
IDS = np.array([0, 2, 2, 0, 1])
DROPPED = np.array([0, -1, 5, 1])  # ids out of range: the kernels drop them

CASES = [
    pytest.param(lambda p: tp.gather_nd(p, IDX), (uniform((2, 3, 2)),), 3, id="gather_nd"),
    pytest.param(lambda u: tp.scatter_nd(IDX, u, (2, 3, 2)), (uniform((3, 2)),), 3, id="scatter_nd"),
    pytest.param(lambda t, u: tp.tensor_scatter_update(t, np.array([[1, 0], [0, 2]]), u),
                 (uniform((2, 3)), uniform((2,), "u")), 2, id="tensor_scatter_update"),
    pytest.param(lambda d: tp.segment_sum(d, IDS, 3), (uniform((5, 2)),), 3, id="segment_sum"),
    pytest.param(lambda d: tp.segment_sum(d, np.array([[0, 1], [1, 1]]), 2), (uniform((2, 2, 3)),), 2,
                 id="segment_sum-2d-ids"),
    pytest.param(lambda d: tp.run_kernel("UnsortedSegmentSum", [d, DROPPED], {"num_segments": 3}),
                 (uniform((4,)),), 2, id="UnsortedSegmentSum-dropped-ids"),
    pytest.param(lambda d: tp.segment_mean(d, IDS, 4), (uniform((5,)),), 3, id="segment_mean"),
    pytest.param(lambda d: tp.segment_max(d, IDS, 3), (uniform((5, 2)),), 2, id="segment_max"),
    pytest.param(lambda d: tp.segment_min(d, IDS), (uniform((5,)),), 2, id="segment_min"),
    pytest.param(lambda d: tp.run_kernel("UnsortedSegmentMax", [d, DROPPED], {"num_segments": 2}),
                 (uniform((4,)),), 2, id="UnsortedSegmentMax-dropped-ids"),
]


@pytest.mark.parametrize(("fn", "args", "order"), CASES)
def test_gradients(fn, args, order):
    check_gradients(fn, *args, order=order)


@pytest.mark.parametrize("reduce", [tp.segment_max, tp.segment_min], ids=("max", "min"))
def test_ties_share_the_gradient(reduce):
    g = tp.grad(lambda d: tp.sum(reduce(d, np.array([0, 0, 0, 1]), 2) * np.array([1.0, 4.0])))(
        np.array([3.0, 1.0, 3.0, 1.0]) if reduce is tp.segment_max else np.array([1.0, 3.0, 1.0, 1.0]))
    np.testing.assert_array_equal(g.numpy(), [0.5, 0.0, 0.5, 4.0])


def test_tensor_scatter_update_gradient_zeroes_the_replaced_slots():
    gt, gu = tp.grad(lambda t, u: tp.sum(tp.tensor_scatter_update(t, np.array([[1]]), u) * np.arange(3.0)),
                     argnums=(0, 1))(np.ones(3), np.ones(1))
    np.testing.assert_array_equal(gt.numpy(), [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(gu.numpy(), [1.0])


SPARSE = [
    pytest.param(lambda d: tp.sparse.segment_sum(d, np.array([0, 2, 2, 1]), np.array([0, 0, 2, 3])),
                 (uniform((3, 2)),), 3, id="sparse.segment_sum"),
    pytest.param(lambda d: tp.sparse.segment_mean(d, np.array([0, 2, 2, 1]), np.array([0, 0, 2, 3]), 5),
                 (uniform((3, 2)),), 2, id="sparse.segment_mean"),
    pytest.param(lambda v, d: tp.sparse.to_dense(np.array([[0, 1], [2, 0]]), v, (3, 2), d),
                 (uniform((2,)), 0.3), 2, id="sparse.to_dense"),
    pytest.param(lambda v, d: tp.run_kernel("SparseToDense", [np.array(2), v, d], {"output_shape": (4,)}),
                 (0.5, 0.3), 2, id="SparseToDense-one-value"),
]


@pytest.mark.parametrize(("fn", "args", "order"), SPARSE)
def test_sparse_gradients(fn, args, order):
    check_gradients(fn, *args, order=order)
