"""Gradients of the linear-algebra, shape-manipulation, indexing and neural-network kernels
against finite differences (MatMul, Reshape, Transpose, BroadcastTo, Concat, Stack, Pad, Roll,
StridedSlice, StridedSliceGrad, Gather, ScatterAdd, Softmax, LogSoftmax) and of the ops
composed from them."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides


def uniform(shape, lo=-2.0, hi=2.0, key="x"):
    rng = np.random.default_rng(zlib.crc32(f"{key}{shape}".encode()))
    return rng.uniform(lo, hi, size=shape)


def args(*shapes):
    return tuple(uniform(s, key=f"arg{i}") for i, s in enumerate(shapes))


def case(name, fn, *shapes):
    return pytest.param(fn, args(*shapes), id=name)


IDX = np.array([2, 0, 2, -1])  # repeats accumulate; -1 counts from the end
IDX2D = np.array([[1, 0], [3, 1], [1, 1]])

CASES = [
    # -- MatMul
    case("matmul", tp.matmul, (3, 4), (4, 2)),
    case("matmul-batched", tp.matmul, (2, 3, 4), (2, 4, 5)),
    case("matmul-broadcast-batch", tp.matmul, (2, 1, 3, 4), (3, 4, 2)),
    case("matmul-broadcast-y", tp.matmul, (5, 3, 4), (4, 2)),
    case("matmul-broadcast-x", tp.matmul, (3, 4), (2, 4, 2)),
    case("matmul-vector-matrix", tp.matmul, (4,), (4, 3)),
    case("matmul-matrix-vector", tp.matmul, (3, 4), (4,)),
    case("matmul-vector-vector", tp.matmul, (4,), (4,)),
    case("matmul-operator", lambda a, b: a @ b, (2, 3), (3, 2)),
    case("MatMul-kernel-broadcast", lambda a, b: tp.run_kernel("MatMul", [a, b]), (1, 3, 4), (2, 4, 2)),
    case("tensordot", lambda a, b: tp.tensordot(a, b, axes=1), (2, 3), (3, 4)),
    case("vecdot", tp.vecdot, (3, 4), (4,)),
    # -- Reshape, Transpose, BroadcastTo
    case("reshape", lambda x: tp.reshape(x, (4, 3)), (2, 6)),
    case("reshape-minus-one", lambda x: tp.reshape(x, (-1,)), (2, 3, 2)),
    case("permute_dims", lambda x: tp.permute_dims(x, (2, 0, 1)), (2, 3, 4)),
    case("Transpose-negative-perm",
         lambda x: tp.run_kernel("Transpose", [x], {"perm": (-1, 0, 1)}), (2, 3, 4)),
    case("matrix_transpose", tp.matrix_transpose, (2, 3, 4)),
    case("T", lambda x: x.T, (2, 3)),
    case("broadcast_to", lambda x: tp.broadcast_to(x, (2, 3, 4)), (3, 1)),
    case("broadcast_to-0d", lambda x: tp.broadcast_to(x, (2, 3)), ()),
    case("expand_dims", lambda x: tp.expand_dims(x, axis=1), (3, 4)),
    case("squeeze", lambda x: tp.squeeze(x, axis=1), (3, 1, 4)),
    case("moveaxis", lambda x: tp.moveaxis(x, 0, -1), (2, 3, 4)),
    case("flip", lambda x: tp.flip(x, axis=1), (3, 4)),
    case("roll", lambda x: tp.roll(x, 2, axis=1), (3, 4)),
    case("roll-axes", lambda x: tp.roll(x, (1, -2), axis=(0, -1)), (2, 3, 4)),
    case("roll-flat", lambda x: tp.roll(x, 5), (2, 3)),
    case("Roll-kernel-one-shift", lambda x: tp.run_kernel("Roll", [x], {"shift": (3,), "axis": (1, 0)}),
         (2, 3)),
    case("tile", lambda x: tp.tile(x, (2, 1)), (2, 3)),
    case("repeat", lambda x: tp.repeat(x, 2, axis=0), (2, 3)),
    # -- Concat, Stack (variadic)
    case("concat-axis0", lambda a, b: tp.concat([a, b], axis=0), (2, 3), (4, 3)),
    case("concat-axis-1", lambda a, b, c: tp.concat([a, b, c], axis=-1), (2, 1), (2, 3), (2, 2)),
    case("concat-same-tensor", lambda a: tp.concat([a, a * 2.0, a], axis=0), (2, 3)),
    case("stack-axis0", lambda a, b: tp.stack([a, b]), (2, 3), (2, 3)),
    case("stack-axis1", lambda a, b, c: tp.stack([a, b, c], axis=1), (2, 3), (2, 3), (2, 3)),
    case("stack-axis-1", lambda a, b: tp.stack([a, b], axis=-1), (3,), (3,)),
    case("unstack", lambda x: tp.unstack(x, axis=1)[1] * tp.unstack(x, axis=1)[0], (3, 2, 2)),
    # -- Pad
    case("pad", lambda x: tp.pad(x, ((1, 2), (0, 1))), (2, 3)),
    case("pad-int", lambda x: tp.pad(x, 1, constant_values=3.0), (2, 3)),
    case("Pad-kernel", lambda x: tp.run_kernel("Pad", [x], {"pad_width": ((2, 0), (1, 1), (0, 0))}),
         (2, 3, 2)),
    # -- StridedSlice / StridedSliceGrad
    case("getitem-slices", lambda x: x[1:3, ::2], (4, 5)),
    case("getitem-reversed", lambda x: x[::-1, 3:0:-2], (4, 5)),
    case("getitem-int", lambda x: x[1, :, 2], (3, 4, 5)),
    case("getitem-ellipsis-newaxis", lambda x: x[..., None, 1:], (2, 3)),
    case("StridedSlice-kernel", lambda x: tp.run_kernel(
        "StridedSlice", [x], {"slices": ((4, -1, -1), (1, 5, 3))}), (5, 5)),
    case("StridedSliceGrad-kernel", lambda dy: tp.run_kernel(
        "StridedSliceGrad", [dy], {"shape": (5, 5), "slices": ((4, -1, -2), (1, 5, 3))}), (3, 2)),
    # -- Gather / ScatterAdd
    case("take", lambda x: tp.take(x, np.array([2, 0, 2, 1]), axis=0), (3, 4)),
    case("take-axis1", lambda x: tp.take(x, IDX2D, axis=1), (2, 4)),
    case("take-flat", lambda x: tp.take(x, np.array([5, 0, 5])), (2, 3)),
    case("getitem-array", lambda x: x[np.array([0, 2, 2]), 1:], (3, 4)),
    case("getitem-arrays", lambda x: x[np.array([0, 2]), :, np.array([1, 1])], (3, 2, 4)),
    case("getitem-mask", lambda x: x[np.array([True, False, True])], (3, 2)),
    case("take_along_axis", lambda x: tp.take_along_axis(x, np.array([[0, 2], [1, 1]]), axis=1), (2, 3)),
    case("Gather-negative-indices", lambda x: tp.run_kernel(
        "Gather", [x, IDX], {"axis": 1}), (2, 3)),
    case("ScatterAdd-kernel", lambda u: tp.run_kernel(
        "ScatterAdd", [IDX2D, u], {"shape": (3, 4, 2), "axis": 1}), (3, 3, 2, 2)),
    # -- Softmax / LogSoftmax
    case("softmax", tp.nn.softmax, (3, 4)),
    case("softmax-axis0", lambda x: tp.nn.softmax(x, axis=0), (3, 4)),
    case("log_softmax", tp.nn.log_softmax, (3, 4)),
    case("log_softmax-axis0", lambda x: tp.nn.log_softmax(x, axis=0), (2, 3, 2)),
    case("softmax_cross_entropy", lambda x: tp.nn.sparse_softmax_cross_entropy(
        np.array([0, 3, 1]), x), (3, 4)),
]


@pytest.mark.parametrize(("fn", "xs"), CASES)
def test_first_order(fn, xs):
    check_gradients(fn, *xs)


SECOND = ["matmul-batched", "matmul-broadcast-batch", "matmul-vector-matrix", "reshape", "roll-axes",
          "permute_dims", "broadcast_to", "concat-axis-1", "stack-axis1", "pad", "getitem-reversed",
          "StridedSliceGrad-kernel", "take", "Gather-negative-indices", "ScatterAdd-kernel",
          "softmax", "log_softmax-axis0", "softmax_cross_entropy"]


@pytest.mark.parametrize(("fn", "xs"), [p for p in CASES if p.id in SECOND])
def test_second_order(fn, xs):
    check_gradients(fn, *xs, order=2)


def test_roll_third_order():  # roll is linear: the cube makes its second and third derivatives count
    check_gradients(lambda x: tp.roll(x, (1, -2), axis=(0, 1)) ** 3 * x, uniform((2, 3)), order=3)


@pytest.mark.parametrize("fn", [tp.nn.softmax, tp.nn.log_softmax], ids=["softmax", "log_softmax"])
def test_normalizers_third_order(fn):
    check_gradients(fn, uniform((2, 3)), order=3)


def test_matmul_mlp_second_order():
    x = uniform((4, 3), key="data")

    def loss(w1, w2):
        return tp.sum(tp.nn.log_softmax(tp.matmul(tp.tanh(tp.matmul(x, w1)), w2)))

    check_gradients(loss, uniform((3, 5), key="w1"), uniform((5, 2), key="w2"), order=2)


def test_gather_repeated_indices_accumulate():
    g = tp.grad(lambda x: tp.sum(tp.take(x, np.array([1, 1, 0, 1]))))(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(g.numpy(), [1.0, 3.0, 0.0])


def test_concat_gradient_parts_have_each_input_shape():
    ga, gb = tp.grad(lambda a, b: tp.sum(tp.concat([a, b], axis=1) * 2.0), argnums=(0, 1))(
        np.ones((2, 1)), np.ones((2, 3)))
    assert ga.shape == (2, 1) and gb.shape == (2, 3)
    np.testing.assert_array_equal(gb.numpy(), np.full((2, 3), 2.0))
