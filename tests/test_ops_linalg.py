"""Linear-algebra ops against numpy and array_api_strict: values, promotion, 1-d rules,
broadcasting, errors, gradients."""

from __future__ import annotations

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

RNG = np.random.default_rng(0)


def _r(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _close(result: tp.Tensor, expected: np.ndarray) -> None:
    got = result.numpy()
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((2, 3), (3, 4)),
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((3,), (3,)),
        ((5, 2, 3), (3, 4)),
        ((2, 3), (5, 3, 4)),
        ((1, 2, 3), (4, 3, 2)),
        ((6, 1, 2, 3), (5, 3, 2)),
        ((4,), (2, 4, 3)),
        ((2, 2, 4), (4,)),
        ((0, 3), (3, 2)),
        ((2, 0), (0, 2)),
        ((1, 1), (1, 1)),
    ],
)
def test_matmul_matches_numpy(sa, sb):
    a, b = _r(*sa), _r(*sb)
    out = tp.matmul(a, b)
    assert out.dtype is tp.float32
    _close(out, np.matmul(a, b))
    _close(tp.asarray(a) @ b, a @ b)
    _close(a @ tp.asarray(b), a @ b)


@pytest.mark.parametrize(
    "da,db",
    [
        ("int32", "int64"),
        ("int32", "float32"),
        ("float32", "float64"),
        ("int64", "int64"),
        ("int32", "int32"),
    ],
)
def test_matmul_promotion(da, db):
    a = np.arange(6).reshape(2, 3).astype(da)
    b = np.arange(6).reshape(3, 2).astype(db)
    out = tp.matmul(a, b)
    expected = np.matmul(a, b)
    # within a kind as the standard says; int with float gives that float (JAX-like)
    assert out.dtype is tp.dtypes.result_type(tp.dtypes.as_dtype(da), tp.dtypes.as_dtype(db))
    np.testing.assert_allclose(out.numpy(), expected)
    if da[:3] == db[:3]:  # the standard defines promotion within a kind only
        ref = xp.matmul(xp.asarray(a), xp.asarray(b))
        assert out.dtype.numpy == np.asarray(ref).dtype


@pytest.mark.parametrize(
    "call,error,match",
    [
        (
            lambda: tp.matmul(np.ones((2, 3)), np.ones((2, 3))),
            tp.ShapeError,
            r"matmul: shapes \(2, 3\) and \(2, 3\) do not fit: 3 \(last axis of the first input\) != 2",
        ),
        (
            lambda: tp.matmul(np.ones(3), np.ones(4)),
            tp.ShapeError,
            r"matmul: shapes \(3,\) and \(4,\) do not fit",
        ),
        (
            lambda: tp.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2))),
            tp.ShapeError,
            r"matmul: shapes \(2,\), \(3,\) cannot be broadcast",
        ),
        (lambda: tp.matmul(np.float32(1), np.ones(3)), tp.ShapeError, r"matmul: 0-d inputs are not matrices"),
        (
            lambda: tp.matmul(np.ones((2, 2), bool), np.ones((2, 2), bool)),
            tp.DTypeError,
            r"matmul does not accept bool tensors",
        ),
        (
            lambda: tp.vecdot(np.ones((2, 3)), np.ones((2, 1))),
            tp.ShapeError,
            r"vecdot: x1 \(shape \(2, 3\)\) and x2 \(shape \(2, 1\)\) must have the same size along axis -1",
        ),
        (
            lambda: tp.vecdot(np.ones(3), np.ones(3), axis=1),
            tp.ShapeError,
            r"vecdot: axis 1 is out of range for a 1-d",
        ),
        (
            lambda: tp.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=1),
            tp.ShapeError,
            r"tensordot: axis 1 of x1 \(shape \(2, 3\)\) has size 3 but axis 0 of x2 "
            r"\(shape \(2, 3\)\) has size 2",
        ),
        (
            lambda: tp.tensordot(np.ones((2, 3)), np.ones((3,)), axes=3),
            tp.ShapeError,
            r"tensordot: axes=3 must be between 0 and the smaller ndim",
        ),
        (
            lambda: tp.tensordot(np.ones((2, 3)), np.ones((3,)), axes=([0, 1], [0])),
            tp.ShapeError,
            r"tensordot: axes .* must name as many distinct axes",
        ),
        (
            lambda: tp.tensordot(np.ones((2, 3)), np.ones((3,)), axes="x"),
            tp.ShapeError,
            r"tensordot: axes must be an int or a pair",
        ),
        (
            lambda: tp.outer(np.ones((2, 2)), np.ones(2)),
            tp.ShapeError,
            r"outer needs two 1-d inputs, got shapes \(2, 2\)",
        ),
        (lambda: tp.outer([True], [False]), tp.DTypeError, r"outer does not accept bool"),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "sa,sb,axis",
    [
        ((3,), (3,), -1),
        ((2, 3), (3,), -1),
        ((2, 3), (2, 3), 0),
        ((4, 1, 3), (2, 3), -1),
        ((2, 3), (4, 2, 3), -2),
        ((0,), (0,), -1),
    ],
)
def test_vecdot(sa, sb, axis):
    a, b = _r(*sa), _r(*sb)
    out = tp.vecdot(a, b, axis=axis)
    _close(out, np.sum(a * b, axis=axis))
    if axis < 0:
        _close(out, np.asarray(xp.vecdot(xp.asarray(a), xp.asarray(b), axis=axis)))


def test_vecdot_ints_keep_the_promoted_dtype():
    # the standard: vecdot's dtype is its inputs' promoted one (unlike sum, which widens)
    out = tp.vecdot(np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32))
    assert out.dtype is tp.int32 and out.item() == 5
    small = tp.vecdot(tp.asarray([1, 2], dtype=tp.uint8), tp.asarray([3, 4], dtype=tp.uint8))
    assert small.dtype is tp.uint8 and small.item() == 11


@pytest.mark.parametrize(
    "sa,sb,axes",
    [
        ((2, 3, 4), (3, 4, 5), 2),
        ((2, 3), (3, 4), 1),
        ((2, 3), (4, 5), 0),
        ((2, 3, 4), (4, 3), ([1, 2], [1, 0])),
        ((2, 3, 4), (2, 5), ([0], [0])),
        ((3,), (3,), 1),
        ((2, 0), (0, 3), 1),
        ((2, 3), (3, 2), ((0, 1), (1, 0))),
    ],
)
def test_tensordot(sa, sb, axes):
    a, b = _r(*sa), _r(*sb)
    _close(tp.tensordot(a, b, axes=axes), np.tensordot(a, b, axes=axes))


def test_tensordot_matches_array_api_strict():
    a, b = _r(2, 3, 4), _r(4, 3)
    ref = xp.tensordot(xp.asarray(a), xp.asarray(b), axes=([1, 2], [1, 0]))
    _close(tp.tensordot(a, b, axes=([1, 2], [1, 0])), np.asarray(ref))


@pytest.mark.parametrize("sa,sb", [((3,), (4,)), ((1,), (1,)), ((0,), (3,))])
def test_outer(sa, sb):
    a, b = _r(*sa), _r(*sb)
    _close(tp.outer(a, b), np.outer(a, b))
    assert tp.outer(np.arange(2, dtype=np.int32), [1.5, 2.0]).dtype is tp.float32


@pytest.mark.parametrize(
    "f,shapes",
    [
        (lambda a, b: tp.matmul(a, b), [(2, 3), (3, 4)]),
        (lambda a, b: tp.matmul(a, b), [(3,), (2, 3, 2)]),
        (lambda a, b: tp.matmul(a, b), [(2, 3), (3,)]),
        (lambda a, b: tp.vecdot(a, b), [(2, 3), (3,)]),
        (lambda a, b: tp.tensordot(a, b, axes=([0, 2], [2, 0])), [(2, 3, 4), (4, 5, 2)]),
        (lambda a, b: tp.outer(a, b), [(3,), (2,)]),
    ],
    ids=["matmul", "matmul-1d-batched", "matvec", "vecdot", "tensordot", "outer"],
)
def test_differentiable(f, shapes):
    check_gradients(f, *[_r(*s, dtype=np.float64) for s in shapes], order=2)
