"""The ops of the segment, n-d scatter, sparse and counting kernels: tp.gather_nd, scatter_nd,
tensor_scatter_update, segment_sum/mean/max/min (against jax.ops), bincount (against
np.bincount and jnp.bincount), dense_bincount, tp.sparse.*, tp.random.categorical; errors at
the op boundary, and what tp.jit does with values it cannot see."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

BACKEND = pytest.mark.parametrize("backend", ["numpy", "jax"])


@pytest.fixture
def on(backend):
    tp.set_backend(backend)
    return backend


DATA = np.array([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0], [2.0, 2.0], [0.0, -3.0]])
IDS = np.array([2, 0, 2, 3, 0])


@BACKEND
@pytest.mark.parametrize("name", ["segment_sum", "segment_max", "segment_min"])
def test_segment_ops_match_jax_ops(on, name):
    jax_ops = pytest.importorskip("jax").ops
    for n in (None, 5):
        got = getattr(tp, name)(DATA, IDS, n)
        want = getattr(jax_ops, name)(DATA, IDS, num_segments=n or 4)
        np.testing.assert_allclose(got.numpy(), np.asarray(want))


@BACKEND
def test_segment_mean_is_the_sum_over_the_count(on):
    got = tp.segment_mean(np.arange(5), IDS, 5).numpy()
    np.testing.assert_allclose(got, [2.5, 0.0, 1.0, 3.0, 0.0])
    assert tp.segment_mean(np.arange(5), IDS).dtype == tp.float32


@BACKEND
def test_segment_ops_refuse_bad_input(on):
    with pytest.raises(tp.IndexOutOfRangeError, match="segment_sum: segment id 4 is out of range for 4"):
        tp.segment_sum(DATA, np.array([0, 1, 2, 3, 4]), 4)
    with pytest.raises(tp.IndexOutOfRangeError, match="segment id -1"):
        tp.segment_max(DATA, np.array([0, 1, 2, 3, -1]), 4)
    with pytest.raises(tp.DTypeError, match="segment_min: data must have a real numeric dtype"):
        tp.segment_min(np.array([True, False]), np.array([0, 0]))
    with pytest.raises(tp.DTypeError, match="segment_ids must be integers"):
        tp.segment_sum(DATA, IDS.astype(float))
    with pytest.raises(tp.ShapeError, match="must have a shape that begins"):
        tp.segment_sum(DATA, np.array([0, 1]))


@BACKEND
def test_segments_under_jit(on):
    f = tp.jit(lambda d, i: tp.segment_sum(d, i, 3))
    np.testing.assert_allclose(f(np.ones(3), np.array([0, 2, 2])).numpy(), [1, 0, 2])
    if on == "jax":  # traced ids out of range are dropped, as jax.ops drops them
        np.testing.assert_allclose(f(np.ones(3), np.array([0, 5, 2])).numpy(), [1, 0, 1])
    with pytest.raises(tp.TracedValueError, match="pass num_segments"):
        tp.jit(lambda d, i: tp.segment_sum(d, i))(np.ones(3), np.array([0, 1, 2]))


@BACKEND
def test_gather_and_scatter_nd(on):
    params = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[1, 2], [0, 0], [1, 2]])
    np.testing.assert_array_equal(tp.gather_nd(params, idx).numpy(), params[idx[:, 0], idx[:, 1]])
    want = np.zeros((2, 3, 4))
    np.add.at(want, (idx[:, 0], idx[:, 1]), np.ones((3, 4)))
    np.testing.assert_array_equal(tp.scatter_nd(idx, np.ones((3, 4)), (2, 3, 4)).numpy(), want)
    got = tp.tensor_scatter_update(params, np.array([[0, 1, 3]]), [-5])
    assert got.numpy()[0, 1, 3] == -5 and got.dtype == tp.float64


@BACKEND
def test_gather_and_scatter_nd_refuse_bad_indices(on):
    with pytest.raises(tp.IndexOutOfRangeError, match=r"gather_nd: index \[0, 3\] is out of range"):
        tp.gather_nd(np.zeros((2, 3)), [[0, 3]])
    with pytest.raises(tp.IndexOutOfRangeError, match="not counted from the end"):
        tp.scatter_nd([[-1]], [1.0], (3,))
    with pytest.raises(tp.DTypeError, match="indices must be integers"):
        tp.gather_nd(np.zeros(3), [[0.5]])
    with pytest.raises(tp.ShapeError, match="updates have shape"):
        tp.tensor_scatter_update(np.zeros(3), [[0]], [1.0, 2.0])
    with pytest.raises(tp.DTypeError, match="cast the updates"):
        tp.tensor_scatter_update(np.zeros(3, np.float32), [[0]], tp.asarray([1], dtype=tp.int32))


@BACKEND
def test_indices_out_of_range_under_jit_never_give_a_silent_value(on):
    f = tp.jit(lambda p, i: tp.gather_nd(p, i))
    g = tp.jit(lambda u, i: tp.scatter_nd(i, u, (4,)))
    np.testing.assert_array_equal(f(np.arange(4.0), np.array([[1], [3]])).numpy(), [1, 3])
    bad = np.array([[1], [7]])
    if on == "jax":  # the fill value, as tp.take
        assert np.isnan(f(np.arange(4.0), bad).numpy()[1])
        assert np.isnan(g(np.ones(2), bad).numpy()).all()
    else:  # the numpy backend's kernels see the values and refuse them
        with pytest.raises(tp.IndexOutOfRangeError):
            f(np.arange(4.0), bad)


@BACKEND
def test_bincount_matches_numpy_and_jax(on):
    x = np.array([1, 1, 3, 0, 6])
    w = np.array([0.5, 1.0, 2.0, 1.0, 3.0])
    np.testing.assert_array_equal(tp.bincount(x).numpy(), np.bincount(x))
    np.testing.assert_allclose(tp.bincount(x, w, minlength=9).numpy(), np.bincount(x, w, minlength=9))
    assert tp.bincount(x).dtype == tp.int64
    jnp = pytest.importorskip("jax.numpy")
    np.testing.assert_allclose(tp.bincount(x, w, length=4).numpy(), np.asarray(jnp.bincount(x, w, length=4)))
    f = tp.jit(lambda v: tp.bincount(v, length=8))
    np.testing.assert_array_equal(f(x).numpy(), np.bincount(x, minlength=8))
    with pytest.raises(tp.TracedValueError, match="bincount: length=None .* pass length"):
        tp.jit(lambda v: tp.bincount(v))(x)
    with pytest.raises(tp.ShapeError, match="negative value -1"):
        tp.bincount([0, -1])
    with pytest.raises(tp.ShapeError, match="x must be 1-d"):
        tp.bincount(np.zeros((2, 2), int))


@BACKEND
def test_dense_bincount(on):
    x = np.array([[1, 1, 3], [0, 5, 0]])
    want = np.stack([np.bincount(r[r < 4], minlength=4) for r in x])
    np.testing.assert_array_equal(tp.dense_bincount(x, 4).numpy(), want)
    np.testing.assert_array_equal(tp.dense_bincount(x, 4, binary_output=True).numpy(), want > 0)
    w = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(tp.dense_bincount(x[0], 4, w[0]).numpy(), np.bincount(x[0], w[0], minlength=4))


@BACKEND
def test_sparse_namespace(on):
    data = np.arange(8.0).reshape(4, 2)
    np.testing.assert_allclose(tp.sparse.segment_sum(data, [0, 1, 3], [0, 0, 2]).numpy(),
                               [[2, 4], [0, 0], [6, 7]])
    np.testing.assert_allclose(tp.sparse.segment_mean(data, [0, 1], [1, 1], num_segments=3).numpy(),
                               [[0, 0], [1, 2], [0, 0]])
    np.testing.assert_array_equal(tp.sparse.to_dense([[0, 1], [1, 0]], [5, 6], (2, 2), -1).numpy(),
                                  [[-1, 5], [6, -1]])
    idx, shape = tp.sparse.reshape([[0, 1], [1, 2]], [2, 3], [3, -1])
    np.testing.assert_array_equal(idx.numpy(), [[0, 1], [2, 1]])
    np.testing.assert_array_equal(shape.numpy(), [3, 2])
    out = tp.sparse.fill_empty_rows([[1, 0]], [2.0], [3, 2], 9.0)
    np.testing.assert_array_equal(out.indices.numpy(), [[0, 0], [1, 0], [2, 0]])
    np.testing.assert_array_equal(out.values.numpy(), [9, 2, 9])
    np.testing.assert_array_equal(out.empty_row_indicator.numpy(), [True, False, True])
    np.testing.assert_array_equal(out.reverse_index_map.numpy(), [1])


@BACKEND
def test_sparse_ops_refuse_bad_input(on):
    with pytest.raises(tp.ShapeError, match="segment_ids must be sorted"):
        tp.sparse.segment_sum(np.ones((3, 2)), [0, 1], [1, 0])
    with pytest.raises(tp.IndexOutOfRangeError, match="index 3 is out of range"):
        tp.sparse.segment_mean(np.ones((3, 2)), [3], [0])
    with pytest.raises(tp.ShapeError, match="repeat an index"):
        tp.sparse.to_dense([[0], [0]], [1, 2], (3,))
    with pytest.raises(tp.IndexOutOfRangeError, match="out of range for an output of shape"):
        tp.sparse.to_dense([[0, 2]], [1], (2, 2))
    with pytest.raises(tp.DTypeError, match="is complex and the output is int64"):
        tp.sparse.to_dense([[0]], np.array([1]), (2,), 0.5 + 1j)
    with pytest.raises(tp.ShapeError, match="sizes must multiply"):
        tp.sparse.reshape([[0, 1]], [2, 3], [4])
    with pytest.raises(tp.IndexOutOfRangeError, match="out of range for dense shape"):
        tp.sparse.fill_empty_rows([[3, 0]], [1.0], [2, 2], 0.0)


@BACKEND
def test_categorical_draws_from_the_softmax(on):
    logits = np.array([np.log([0.1, 0.2, 0.7]), [np.log(0.5), np.log(0.5), -np.inf]])
    s = tp.random.categorical(logits, 6000, seed=4)
    assert s.dtype == tp.int64 and s.shape == (2, 6000)
    for row, p in zip(s.numpy(), np.exp(logits)):
        np.testing.assert_allclose(np.bincount(row, minlength=3) / 6000, p, atol=0.03)
    np.testing.assert_array_equal(s.numpy(), tp.random.categorical(logits, 6000, seed=4).numpy())
    assert not np.array_equal(s.numpy(), tp.random.categorical(logits, 6000, seed=5).numpy())
    one = tp.random.categorical(np.zeros(4), 5, seed=0)
    assert one.shape == (5,)
    jitted = tp.jit(lambda x: tp.random.categorical(x, 5, seed=0))(np.zeros(4))
    np.testing.assert_array_equal(jitted.numpy(), one.numpy())
    with pytest.raises(tp.ShapeError, match="logits must be 1-d"):
        tp.random.categorical(np.zeros((1, 2, 3)), 2, seed=0)
    with pytest.raises(tp.ArgumentError, match="seed must be an int"):
        tp.random.categorical(np.zeros(3), 2, seed=0.5)
