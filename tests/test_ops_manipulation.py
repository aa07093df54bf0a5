"""Shape-manipulation ops against numpy: values, dtypes, promotion, edge shapes, errors."""

from __future__ import annotations

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
INTS = np.arange(6, dtype=np.int32).reshape(2, 3)


def _same(result: tp.Tensor, expected: np.ndarray) -> None:
    got = result.numpy()
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# -- table: (tensorplug call, numpy call) on the same data --------------------------------------
CASES = [
    ("reshape", lambda m, x: m.reshape(x, (4, 6)), lambda x: x.reshape(4, 6)),
    ("reshape-1", lambda m, x: m.reshape(x, (-1, 4)), lambda x: x.reshape(-1, 4)),
    ("reshape0d", lambda m, x: m.reshape(x, (24,)), lambda x: x.reshape(24)),
    ("permute", lambda m, x: m.permute_dims(x, (2, 0, 1)), lambda x: x.transpose(2, 0, 1)),
    ("permute-neg", lambda m, x: m.permute_dims(x, (-1, 0, 1)), lambda x: x.transpose(2, 0, 1)),
    ("mT", lambda m, x: m.matrix_transpose(x), lambda x: np.swapaxes(x, -1, -2)),
    (
        "broadcast_to",
        lambda m, x: m.broadcast_to(x, (5, 2, 3, 4)),
        lambda x: np.broadcast_to(x, (5, 2, 3, 4)),
    ),
    ("expand0", lambda m, x: m.expand_dims(x, axis=0), lambda x: np.expand_dims(x, 0)),
    ("expand-1", lambda m, x: m.expand_dims(x, axis=-1), lambda x: np.expand_dims(x, -1)),
    ("expand-tuple", lambda m, x: m.expand_dims(x, axis=(0, 2)), lambda x: np.expand_dims(x, (0, 2))),
    ("flip-all", lambda m, x: m.flip(x), lambda x: np.flip(x)),
    ("flip1", lambda m, x: m.flip(x, axis=1), lambda x: np.flip(x, 1)),
    ("flip-tuple", lambda m, x: m.flip(x, axis=(0, -1)), lambda x: np.flip(x, (0, -1))),
    ("moveaxis", lambda m, x: m.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1)),
    ("moveaxis-multi", lambda m, x: m.moveaxis(x, (0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0))),
    ("pad-int", lambda m, x: m.pad(x, 1), lambda x: np.pad(x, 1)),
    (
        "pad-pair",
        lambda m, x: m.pad(x, (1, 2), constant_values=-1),
        lambda x: np.pad(x, (1, 2), constant_values=-1),
    ),
    (
        "pad-per-axis",
        lambda m, x: m.pad(x, ((0, 0), (2, 1), (0, 3))),
        lambda x: np.pad(x, ((0, 0), (2, 1), (0, 3))),
    ),
    ("pad-one-pair", lambda m, x: m.pad(x, ((1, 0),)), lambda x: np.pad(x, ((1, 0),))),
    ("pad-zero", lambda m, x: m.pad(x, 0), lambda x: np.pad(x, 0)),
    ("tile", lambda m, x: m.tile(x, (2, 1, 3)), lambda x: np.tile(x, (2, 1, 3))),
    ("tile-more-dims", lambda m, x: m.tile(x, (2, 1, 1, 2)), lambda x: np.tile(x, (2, 1, 1, 2))),
    ("tile-fewer", lambda m, x: m.tile(x, (2,)), lambda x: np.tile(x, (2,))),
    ("repeat-int", lambda m, x: m.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1)),
    ("repeat-flat", lambda m, x: m.repeat(x, 3), lambda x: np.repeat(x, 3)),
    ("repeat-counts", lambda m, x: m.repeat(x, [1, 0, 2], axis=1), lambda x: np.repeat(x, [1, 0, 2], axis=1)),
    ("repeat-one-count", lambda m, x: m.repeat(x, [2], axis=1), lambda x: np.repeat(x, [2], axis=1)),
    ("roll", lambda m, x: m.roll(x, 1, axis=2), lambda x: np.roll(x, 1, axis=2)),
    ("roll-neg", lambda m, x: m.roll(x, -4, axis=1), lambda x: np.roll(x, -4, axis=1)),
    ("roll-multi", lambda m, x: m.roll(x, (1, 2), axis=(0, 2)), lambda x: np.roll(x, (1, 2), axis=(0, 2))),
    ("roll-flat", lambda m, x: m.roll(x, 5), lambda x: np.roll(x, 5)),
    ("roll-same-axis", lambda m, x: m.roll(x, (2, -7), axis=(1, -2)),
     lambda x: np.roll(x, (2, -7), axis=(1, -2))),
    ("roll-one-shift", lambda m, x: m.roll(x, 3, axis=(2, 0)), lambda x: np.roll(x, 3, axis=(2, 0))),
    ("roll-shift-tuple", lambda m, x: m.roll(x, (4,), axis=1), lambda x: np.roll(x, 4, axis=1)),
    ("squeeze", lambda m, x: m.squeeze(m.reshape(x, (2, 1, 12)), axis=1), lambda x: x.reshape(2, 12)),
]


@pytest.mark.parametrize("name,op,ref", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("data", [A, A.astype(np.int64), A > 10], ids=["f32", "i64", "bool"])
def test_matches_numpy(name, op, ref, data):
    _same(op(tp, data), ref(data))


@pytest.mark.parametrize(
    "name,op,ref",
    [c for c in CASES if c[0] in ("flip-all", "pad-int", "moveaxis", "expand0", "tile", "roll")],
    ids=lambda c: c if isinstance(c, str) else "",
)
def test_empty_axes(name, op, ref):
    data = np.zeros((2, 0, 3), np.float32)
    _same(op(tp, data), ref(data))


def test_tensor_properties_call_ops():
    x = tp.asarray(INTS)
    _same(x.T, INTS.T)
    _same(tp.asarray(A).mT, np.swapaxes(A, -1, -2))
    with pytest.raises(tp.ShapeError, match="Tensor.T needs a 2-d tensor"):
        _ = tp.asarray(A).T


def test_zero_d_and_size_one():
    _same(tp.reshape(np.float32(3.0), (1, 1)), np.full((1, 1), 3.0, np.float32))
    _same(tp.reshape(np.ones((1, 1), np.float32), ()), np.float32(1.0).reshape(()))
    _same(tp.expand_dims(np.float32(3.0), axis=0), np.array([3.0], np.float32))
    _same(tp.squeeze(np.ones((1, 1), np.float32)), np.ones((), np.float32))
    _same(tp.flip(np.float32(2.0)), np.array(2.0, np.float32))
    _same(tp.broadcast_to(np.float32(2.0), (2, 2)), np.full((2, 2), 2.0, np.float32))


# -- concat / stack / unstack / broadcast_arrays -------------------------------------------------
@pytest.mark.parametrize(
    "axis,parts", [(0, [A, A[:1], A]), (1, [A, A[:, :0], A[:, 1:]]), (-1, [A, A[:, :, :2]])]
)
def test_concat(axis, parts):
    _same(tp.concat(parts, axis=axis), np.concatenate(parts, axis=axis))


def test_concat_axis_none_flattens_and_promotes():
    out = tp.concat([INTS, A], axis=None)
    _same(out, np.concatenate([INTS.ravel().astype(np.float32), A.ravel()]))
    assert tp.concat([INTS, INTS.astype(np.int64)]).dtype is tp.int64
    _same(tp.concat([A]), A)


def test_concat_matches_array_api_strict_promotion():
    a, b = np.ones((2,), np.int32), np.ones((3,), np.int64)
    ref = xp.concat([xp.asarray(a), xp.asarray(b)])
    out = tp.concat([a, b])
    assert out.dtype.numpy == np.asarray(ref).dtype
    np.testing.assert_array_equal(out.numpy(), np.asarray(ref))


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_stack(axis):
    _same(tp.stack([A, A + 1, A * 2], axis=axis), np.stack([A, A + 1, A * 2], axis=axis))


def test_stack_promotes_and_zero_d():
    out = tp.stack([np.int32(1), np.float64(2.0)])
    _same(out, np.array([1.0, 2.0]))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(axis):
    parts = tp.unstack(A, axis=axis)
    expected = [np.take(A, i, axis=axis) for i in range(A.shape[axis])]
    assert isinstance(parts, tuple) and len(parts) == len(expected)
    for p, e in zip(parts, expected):
        _same(p, e)


def test_broadcast_arrays_keep_dtypes():
    a, b = tp.broadcast_arrays(np.ones((3, 1), np.int32), np.zeros((4,), np.float32))
    assert a.shape == b.shape == (3, 4)
    assert a.dtype is tp.int32 and b.dtype is tp.float32


def test_broadcast_matches_array_api_strict():
    x = np.arange(3, dtype=np.float32).reshape(3, 1)
    ref = xp.broadcast_to(xp.asarray(x), (2, 3, 4))
    _same(tp.broadcast_to(x, (2, 3, 4)), np.asarray(ref))


# -- errors name the op, the shapes and the fix ------------------------------------------------
ERRORS = [
    (
        lambda: tp.reshape(A, (5, 5)),
        tp.ShapeError,
        r"reshape: cannot reshape 24 elements \(shape \(2, 3, 4\)\) into \(5, 5\)",
    ),
    (lambda: tp.reshape(A, (-1, 5)), tp.ShapeError, r"reshape: .*the -1 cannot be inferred"),
    (lambda: tp.reshape(A, (-1, -1)), tp.ShapeError, r"reshape: shape \(-1, -1\) is invalid"),
    (lambda: tp.reshape(A, (2.5, 2)), tp.DTypeError, r"reshape: shape must be an int or a sequence of ints"),
    (
        lambda: tp.permute_dims(A, (0, 1)),
        tp.ShapeError,
        r"permute_dims: axes \(0, 1\) is not a permutation of the 3 axes of shape \(2, 3, 4\): it has 2 "
        r"entries",
    ),
    (
        lambda: tp.permute_dims(A, (0, 1, 1)),
        tp.ShapeError,
        r"permute_dims: axes \(0, 1, 1\) is not a permutation",
    ),
    (
        lambda: tp.permute_dims(A, (0, 1, 3)),
        tp.ShapeError,
        r"permute_dims: axes \(0, 1, 3\) is not a permutation .*: axis 3 is out of range",
    ),
    (lambda: tp.matrix_transpose(np.ones(3)), tp.ShapeError, r"matrix_transpose needs at least 2 dimensions"),
    (
        lambda: tp.broadcast_to(A, (3, 4)),
        tp.ShapeError,
        r"broadcast_to: cannot broadcast shape \(2, 3, 4\) to \(3, 4\)",
    ),
    (
        lambda: tp.broadcast_to(A, (2, 5, 4)),
        tp.ShapeError,
        r"broadcast_to: cannot broadcast shape \(2, 3, 4\) to \(2, 5, 4\): axis -2 has size 3",
    ),
    (
        lambda: tp.broadcast_arrays(np.ones(2), np.ones(3)),
        tp.ShapeError,
        r"broadcast_arrays: shapes \(2,\), \(3,\)",
    ),
    (lambda: tp.concat([]), tp.ShapeError, r"concat takes a non-empty sequence"),
    (
        lambda: tp.concat([A, A[0]]),
        tp.ShapeError,
        r"concat: input 1 has shape \(3, 4\), which does not match input 0's",
    ),
    (
        lambda: tp.concat([A, A[:, :2]], axis=0),
        tp.ShapeError,
        r"concat: input 1 has shape \(2, 2, 4\).*outside axis 0",
    ),
    (lambda: tp.concat([np.float32(1)]), tp.ShapeError, r"concat: cannot join 0-d tensors"),
    (lambda: tp.concat([A], axis=3), tp.ShapeError, r"concat: axis 3 is out of range for a 3-d"),
    (
        lambda: tp.stack([A, A[0]]),
        tp.ShapeError,
        r"stack: inputs must have equal shapes; input 1 has \(3, 4\)",
    ),
    (lambda: tp.stack([A], axis=4), tp.ShapeError, r"stack: axis 4 is out of range for a 4-d"),
    (lambda: tp.unstack(np.float32(1)), tp.ShapeError, r"unstack needs at least one dimension"),
    (lambda: tp.expand_dims(A, axis=4), tp.IndexOutOfRangeError,
     r"expand_dims: axis 4 is out of range for a 3-d input with 1 axis inserted \(valid: -4..3"),
    (lambda: tp.expand_dims(A, axis=-5), IndexError, r"axis -5 is out of range"),
    (lambda: tp.squeeze(A, axis=1), tp.ShapeError, r"squeeze: axis 1 of shape \(2, 3, 4\) has size 3, not 1"),
    (
        lambda: tp.flip(A, axis=(0, 0)),
        tp.ShapeError,
        r"flip: axis \(0, 0\) names an axis of the 3-d input twice",
    ),
    (lambda: tp.moveaxis(A, (0, 1), 2), tp.ShapeError, r"moveaxis: source \(0, 1\) and destination 2"),
    (lambda: tp.pad(A, ((1, 1), (1, 1))), tp.ShapeError, r"pad: pad_width .* does not fit a 3-d input"),
    (lambda: tp.pad(A, -1), tp.ShapeError, r"pad: pad widths must be >= 0"),
    (lambda: tp.pad(A, 1.5), tp.DTypeError, r"pad: pad_width must hold ints"),
    (lambda: tp.tile(A, (-1,)), tp.ShapeError, r"tile: repetitions \(-1,\) must be >= 0"),
    (
        lambda: tp.repeat(A, [1, 2], axis=1),
        tp.ShapeError,
        r"repeat: repeats has shape \(2,\).*axis 1 \(size 3\)",
    ),
    (lambda: tp.repeat(A, -1), tp.DTypeError, r"repeat: repeats must be non-negative ints"),
    (lambda: tp.roll(A, (1, 2), axis=(0, 1, 2)), tp.ShapeError, r"roll: shift \(1, 2\) and axis \(0, 1, 2\)"),
]


@pytest.mark.parametrize(
    "call,error,match", ERRORS, ids=[m.split(":")[0].split(" ")[0].strip("\\r") for _, _, m in ERRORS]
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- gradients flow through the composed ops ---------------------------------------------------
@pytest.mark.parametrize(
    "f",
    [
        lambda x: tp.flip(x, axis=1),
        lambda x: tp.pad(x, ((1, 0), (0, 2), (1, 1)), constant_values=3.0),
        lambda x: tp.tile(x, (2, 1, 2)),
        lambda x: tp.repeat(x, 2, axis=2),
        lambda x: tp.repeat(x, [2, 0, 1], axis=1),
        lambda x: tp.roll(x, 2, axis=-1),
        lambda x: tp.moveaxis(x, 0, -1),
        lambda x: tp.stack(tp.unstack(x, axis=1), axis=0),
        lambda x: tp.concat([x, x * 2], axis=None),
        lambda x: tp.broadcast_arrays(x, np.ones((5, 1, 1, 1)))[0],
    ],
    ids=[
        "flip",
        "pad",
        "tile",
        "repeat",
        "repeat-counts",
        "roll",
        "moveaxis",
        "unstack",
        "concat",
        "broadcast_arrays",
    ],
)
def test_differentiable(f):
    check_gradients(f, A.astype(np.float64) / 10, order=2)
