"""Indexing against numpy's own indexing: a wide table of keys, hypothesis-generated keys
(basic and advanced, mixed), take, take_along_axis, nonzero, errors, gradients."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorplug as tp
from tensorplug.testing import check_gradients

A = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
M = np.arange(12, dtype=np.int64).reshape(3, 4)

KEYS = [
    0,
    -1,
    1,
    slice(None),
    slice(1, None),
    slice(None, None, -1),
    slice(None, None, 2),
    (0, 1),
    (0, -1, 2, -5),
    (slice(None), 1),
    (..., 0),
    (0, ...),
    (..., None),
    (None, ...),
    (None, 0, None, slice(1, 3)),
    (slice(-2, None, -1), slice(3, 0, -2)),
    (slice(10, 20),),
    (slice(None, None, -3),),
    (slice(5, -10, -1),),
    (Ellipsis,),
    (),
    [1, 0],
    [[0, 1], [1, 1]],
    [-1],
    [],
    (slice(None), [0, 2, 1]),
    (slice(None), [0, 2], [1, 3]),
    ([0, 1], slice(None), [0, 3]),
    (0, slice(None), [0, 1]),
    ([0, 1], 0, [0, 1]),
    (1, [0, 1], 0),
    (slice(None), 1, None, [0, 2]),
    ([[0], [1]], [0, 2]),
    ([0, 1], ..., [0, 4]),
    (slice(None), [0, 2], None, [1, 3]),
    ([0, 1], [1, 2], [2, 3], [3, 4]),
    (..., [0, 1]),
    (None, [1, 0], None),
    (slice(None, None, -1), [2, 0]),
    (np.array(1), slice(None), 0),
    A[..., 0, 0] > 0,
    A[:, :, 0, 0] > 3,
    A[..., 0] > 40,
    A > 50,
    (slice(None), A[0, :, :, 0] > 10),
    (..., A[0, 0, 0] > 2),
    (A[:, 0, 0, 0] > 0, 1),
    (A[:, :, 0, 0] > 3, [0, 1, 2, 0, 1]),
    (slice(None), [0, 1], A[0, 0, :, 0] > 5),
    True,
    False,
    (True, 0),
    (slice(None), True, [0, 1]),
    (True, slice(None), [0, 1]),
    (slice(None), [0, 1, 2], True, [0, 1, 2]),
    (None, True, ..., False),
    [True, False],
    (slice(None), [True, False, True]),
]


def _tensor_key(key):
    """The same key with every array replaced by a Tensor (numpy arrays and lists of indices)."""
    items = key if isinstance(key, tuple) else (key,)
    out = tuple(tp.asarray(_host(k)) if isinstance(k, (np.ndarray, list)) else k for k in items)
    return out if isinstance(key, tuple) else out[0]


def _host(k):
    arr = np.asarray(k)
    return arr.astype(np.int64) if arr.size == 0 and arr.dtype.kind == "f" else arr


def _check(data: np.ndarray, key) -> None:
    expected = data[key]
    x = tp.asarray(data)
    for k in (key, _tensor_key(key)):
        got = x[k]
        assert got.shape == expected.shape, (key, got.shape, expected.shape)
        assert got.dtype.numpy == expected.dtype
        np.testing.assert_array_equal(got.numpy(), expected)


@pytest.mark.parametrize("key", KEYS, ids=[str(i) for i in range(len(KEYS))])
def test_getitem_matches_numpy(key):
    _check(A, key)


@pytest.mark.parametrize(
    "key", [0, (slice(None), -1), [2, 0], M > 4, (M > 4)[:, 0], ..., None, (slice(None), [3, 3, 0])]
)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_, np.float64])
def test_getitem_dtypes(key, dtype):
    _check(M.astype(dtype), key)


@pytest.mark.parametrize("key", [(), ..., None, (None, None), True, False, (..., None)])
def test_getitem_zero_d(key):
    _check(np.array(7.0, np.float32), key)


@pytest.mark.parametrize(
    "key",
    [
        0,
        slice(None),
        [0, 0],
        (slice(None), []),
        np.zeros((2, 0), bool),
        (slice(1, 1),),
        (slice(None), slice(None, None, -1)),
        (None, 1),
    ],
)
def test_getitem_empty_axes(key):
    _check(np.zeros((2, 0), np.float32), key)


def test_getitem_with_int_tensor_and_index_protocol():
    x = tp.asarray(M)
    _check(M, (np.int64(2), np.int32(-1)))
    np.testing.assert_array_equal(x[tp.asarray(2)].numpy(), M[2])
    np.testing.assert_array_equal(x[tp.asarray([[2, 0]], dtype=tp.int32)].numpy(), M[[[2, 0]]])


# -- hypothesis: random keys, basic and advanced -----------------------------------------------
@st.composite
def arrays_and_keys(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    if draw(st.booleans()):
        key = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
        return data, key
    items = []
    axis = 0
    result_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    ellipsis_used = False
    while axis < len(shape):
        kind = draw(st.sampled_from(["int", "slice", "array", "mask", "none", "ellipsis", "stop"]))
        size = shape[axis]
        if kind == "stop":
            if ellipsis_used:  # items after ... must cover the axes it left, or positions shift
                continue
            break
        if kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not ellipsis_used:
            ellipsis_used = True
            items.append(Ellipsis)
            axis = len(shape) - draw(st.integers(0, len(shape) - axis))
        elif kind == "int" and size:
            items.append(draw(st.integers(-size, size - 1)))
            axis += 1
        elif kind == "array" and size:
            items.append(draw(hnp.arrays(np.int64, result_shape, elements=st.integers(-size, size - 1))))
            axis += 1
        elif kind == "mask":
            k = draw(st.integers(1, len(shape) - axis))
            items.append(draw(hnp.arrays(np.bool_, shape[axis : axis + k])))
            axis += k
        else:
            start = draw(st.none() | st.integers(-size - 2, size + 2))
            stop = draw(st.none() | st.integers(-size - 2, size + 2))
            step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
            items.append(slice(start, stop, step))
            axis += 1
    return data, tuple(items)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays_and_keys())
def test_getitem_hypothesis(case):
    data, key = case
    try:
        expected = data[key]
    except IndexError:
        with pytest.raises(tp.TensorplugError):
            tp.asarray(data)[key]
        return
    _check(data, key)
    del expected


# -- errors --------------------------------------------------------------------------------------
ERRORS = [
    (
        3,
        tp.errors.IndexOutOfRangeError,
        r"getitem: index 3 is out of range for axis 0 of size 2 \(valid: -2..1\)",
    ),
    ((0, -4), tp.errors.IndexOutOfRangeError, r"getitem: index -4 is out of range for axis 1 of size 3"),
    (
        (slice(None), [0, 3]),
        tp.errors.IndexOutOfRangeError,
        r"getitem: index 3 is out of range for axis 1 of size 3",
    ),
    ([-3], tp.errors.IndexOutOfRangeError, r"getitem: index -3 is out of range for axis 0 of size 2"),
    (
        (0, 0, 0, 0, 0),
        tp.errors.IndexShapeError,
        r"getitem: too many indices for a 4-d tensor \(shape \(2, 3, 4, 5\)\): 5",
    ),
    ((..., 0, ...), tp.ShapeError, r"getitem: an index can have only one ellipsis"),
    (
        np.ones(3, bool),
        tp.errors.IndexShapeError,
        r"getitem: boolean index of shape \(3,\) does not match axes 0..0 .*sizes \(2,\)",
    ),
    (
        (slice(None), np.ones((3, 5), bool)),
        tp.errors.IndexShapeError,
        r"boolean index of shape \(3, 5\) does not match axes 1..2",
    ),
    (
        ([0, 1], [0, 1, 2]),
        tp.ShapeError,
        r"getitem \(index arrays\): shapes \(2,\), \(3,\) cannot be broadcast",
    ),
    (1.5, tp.DTypeError, r"getitem: cannot index with float 1.5"),
    ("a", tp.DTypeError, r"getitem: cannot index with str"),
    ([0.5], tp.DTypeError, r"getitem: indices must be integers or booleans, got dtype float64"),
    (slice(None, None, 0), tp.ShapeError, r"getitem: invalid slice .* for axis 0: slice step cannot be zero"),
    (slice(0.5, None), tp.DTypeError, r"getitem: invalid slice"),
]


@pytest.mark.parametrize("key,error,match", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_getitem_errors(key, error, match):
    with pytest.raises(error, match=match):
        tp.asarray(A)[key]


def test_out_of_range_error_is_an_index_error():
    with pytest.raises(IndexError):
        tp.asarray(A)[tp.asarray([5])]
    with pytest.raises(IndexError):  # a mask of other sizes, as the standard says
        tp.asarray(A)[np.ones(3, bool)]
    with pytest.raises(TypeError):
        tp.asarray(A)[tp.asarray([0.5])]


def test_mask_axes_of_size_zero_select_nothing():
    """The standard: each mask axis equals the indexed axis or is 0 (then nothing is chosen)."""
    x = tp.asarray(A)
    assert x[np.zeros((0, 0), bool)].shape == (0,) + A.shape[2:]
    assert x[np.zeros((2, 0), bool)].shape == (0,) + A.shape[2:]
    assert x[:, np.zeros((0,), bool)].shape == (A.shape[0], 0) + A.shape[2:]
    with pytest.raises(tp.errors.IndexShapeError, match=r"an axis of size 0 matches any"):
        x[np.zeros((1, 0), bool)]


def test_zero_d_masks_on_a_zero_d_tensor():
    x = tp.asarray(5.0)
    assert x[tp.asarray(True)].tolist() == [5.0] and x[tp.asarray(False)].shape == (0,)


def test_iteration_uses_getitem():
    rows = list(tp.asarray(M))
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[1].numpy(), M[1])


# -- take / take_along_axis / nonzero ------------------------------------------------------------
@pytest.mark.parametrize(
    "indices,axis",
    [
        ([0, 2], 1),
        ([[1], [0]], 0),
        (-1, 2),
        ([3, 0, 3], -1),
        ([], 1),
        ([5, 0, 119], None),
        (np.int64(7), None),
    ],
)
def test_take(indices, axis):
    expected = np.take(A, indices, axis=axis)
    for idx in (indices, tp.asarray(np.asarray(indices, np.int64))):
        got = tp.take(A, idx, axis=axis)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got.numpy(), expected)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (
            lambda: tp.take(A, [0, 3], axis=1),
            tp.errors.IndexOutOfRangeError,
            r"take: index 3 is out of range for axis 1 of size 3",
        ),
        (
            lambda: tp.take(A, tp.asarray([-4]), axis=1),
            tp.errors.IndexOutOfRangeError,
            r"take: index -4 is out of range",
        ),
        (
            lambda: tp.take(A, [0.5], axis=1),
            tp.DTypeError,
            r"take: indices must be integers or booleans, got dtype float64",
        ),
        (lambda: tp.take(A, [True], axis=1), tp.DTypeError, r"take: indices must be integers, got bool"),
        (lambda: tp.take(A, [0], axis=4), tp.ShapeError, r"take: axis 4 is out of range for a 4-d input"),
        (
            lambda: tp.take(np.zeros((0,), np.float32), [0]),
            tp.errors.IndexOutOfRangeError,
            r"axis 0 of size 0 \(valid: none",
        ),
    ],
)
def test_take_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "shape_idx,axis",
    [((2, 3, 4, 2), -1), ((1, 3, 4, 5), 0), ((2, 1, 4, 5), 1), ((2, 3, 1, 5), 2), ((2, 3, 0, 5), 2)],
)
def test_take_along_axis(shape_idx, axis):
    rng = np.random.default_rng(1)
    idx = rng.integers(-A.shape[axis], A.shape[axis], shape_idx)
    np.testing.assert_array_equal(
        tp.take_along_axis(A, idx, axis=axis).numpy(), np.take_along_axis(A, idx, axis=axis)
    )


def test_take_along_axis_broadcasts_and_errors():
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[0, 3]])
    np.testing.assert_array_equal(
        tp.take_along_axis(x, idx, axis=1).numpy(),
        np.take_along_axis(x, np.broadcast_to(idx, (3, 2)), axis=1),
    )
    with pytest.raises(tp.ShapeError, match="take_along_axis: x .* and indices .* same number"):
        tp.take_along_axis(x, [0, 1], axis=1)


@pytest.mark.parametrize(
    "data",
    [
        M > 4,
        M.astype(np.float32) - 5,
        np.zeros(5),
        np.array([0, 3, 0, 1]),
        A % 7 == 0,
        np.zeros((2, 0, 3)),
        np.ones((1, 1), bool),
    ],
    ids=["bool2d", "float2d", "zeros", "int1d", "4d", "empty", "size1"],
)
def test_nonzero(data):
    got = tp.nonzero(data)
    expected = np.nonzero(data)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype is tp.int64
        np.testing.assert_array_equal(g.numpy(), e)


def test_nonzero_zero_d_is_shape_error():
    with pytest.raises(tp.ShapeError, match="nonzero needs at least one dimension"):
        tp.nonzero(np.float32(1))


# -- gradients through StridedSlice, Reshape, Transpose and Gather -----------------------------
@pytest.mark.parametrize(
    "key",
    [
        (0, slice(None), slice(1, 3)),
        (slice(None, None, -1), None, 2),
        (..., [0, 2, 2]),
        ([0, 1], slice(None), [1, 1]),
        (0, slice(None), [0, 1]),
        (A[:, :, 0, 0] > 20,),
        (slice(None), A[0, :, :, 0] > 30, slice(None, None, 2)),
        ([[1], [0]], [0, 2], 3),
    ],
    ids=lambda k: str(k)[:30],
)
def test_getitem_gradient(key):
    x = A.astype(np.float64) / 100

    def f(t):
        return t[key] ** 2

    check_gradients(f, x, order=2)
    dx = tp.grad(lambda t: tp.sum(t[key]))(x).numpy()
    expected = np.zeros_like(x)
    np.add.at(expected, key, 1.0)
    np.testing.assert_allclose(dx, expected)


def test_take_gradient_accumulates_repeats():
    x = np.arange(4.0)
    dx = tp.grad(lambda t: tp.sum(tp.take(t, [0, 0, -1])))(x).numpy()
    np.testing.assert_array_equal(dx, [2.0, 0.0, 0.0, 1.0])
    check_gradients(
        lambda t: tp.take_along_axis(t, np.array([[0, 0, 2]]), axis=1), np.arange(6.0).reshape(2, 3), order=2
    )
