"""NumPy backend, shape-manipulation kernels: Reshape, Transpose, BroadcastTo, Concat, Stack, Pad,
Roll against numpy references, for every dtype, edge shapes and the spec's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, holds, per_kind, raises_for, run, sample

#: data movement is dtype-blind: one dtype per kind (the conformance runs hold every dtype)
DTYPES = pytest.mark.parametrize("dtype", per_kind(tp.dtypes.ALL_DTYPES), ids=lambda d: d.name)


# -- Reshape ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "new"), [
    ((2, 3), (3, 2)), ((2, 3), (6,)), ((2, 3), (-1,)), ((2, 3), (1, -1, 1)), ((2, 3), (3, -1)),
    ((), (1,)), ((), (1, 1)), ((1, 1), ()), ((0, 3), (3, 0)), ((0, 3), (-1,)), ((0,), (0, 5)),
], ids=str)
@DTYPES
def test_reshape(dtype, shape, new):
    x = sample(shape, dtype)
    assert_values(run("Reshape", {"x": x}, {"shape": new}), np.reshape(x, new), dtype)


@pytest.mark.parametrize(("shape", "new", "fragments"), [
    ((2, 3), (4,), ("cannot reshape 6 elements", "(2, 3)", "(4,)")),
    ((2, 3), (-1, 4), ("(2, 3)", "(-1, 4)")),
    ((2, 3), (-1, -1), ("more than one -1",)),
    ((0, 3), (0, -1), ("(0, 3)", "(0, -1)")),
], ids=str)
def test_reshape_to_a_wrong_size_is_a_shape_error(shape, new, fragments):
    raises_for("Reshape", tp.ShapeError, {"x": np.zeros(shape, np.float32)}, {"shape": new}, *fragments)


# -- Transpose ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "perm"), [
    ((2, 3), (1, 0)), ((2, 3), (0, 1)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (-1, 0, -2)),
    ((), ()), ((0, 3), (1, 0)), ((1, 2, 1), (2, 1, 0)),
], ids=str)
@DTYPES
def test_transpose(dtype, shape, perm):
    x = sample(shape, dtype)
    assert_values(run("Transpose", {"x": x}, {"perm": perm}), np.transpose(x, perm), dtype)


@pytest.mark.parametrize("perm", [(0,), (0, 0), (0, 2), (2, 1), (-3, 0), (0, 1, 2)], ids=str)
def test_transpose_refuses_what_is_not_a_permutation(perm):
    raises_for("Transpose", tp.ShapeError, {"x": np.zeros((2, 3))}, {"perm": perm},
               "not a permutation", "(2, 3)")


# -- BroadcastTo --------------------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "target"), [
    ((3,), (2, 3)), ((), (2, 2)), ((2, 1), (2, 4)), ((1,), (0,)), ((2, 3), (2, 3)), ((1, 3), (4, 2, 3)),
    ((), ()),
], ids=str)
@DTYPES
def test_broadcast_to(dtype, shape, target):
    x = sample(shape, dtype)
    assert_values(run("BroadcastTo", {"x": x}, {"shape": target}), np.broadcast_to(x, target), dtype)


def test_broadcast_to_returns_a_real_array_not_a_strided_view():
    x = tp.asarray(np.arange(3.0))
    out = tp.run_kernel("BroadcastTo", {"x": x}, {"shape": (4, 3)})
    host = np.asarray(out.native)
    assert host.flags.c_contiguous and 0 not in host.strides
    assert not np.shares_memory(host, np.asarray(x.native))
    if isinstance(out.native, np.ndarray):  # numpy: a writeable array of its own (jax's are immutable)
        assert out.native.flags.writeable


@pytest.mark.parametrize(("shape", "target"), [((3,), (4,)), ((2, 3), (3,)), ((2,), (2, 3))], ids=str)
def test_broadcast_to_an_incompatible_shape_is_a_shape_error(shape, target):
    raises_for("BroadcastTo", tp.ShapeError, {"x": np.zeros(shape)}, {"shape": target},
               "broadcast", str(shape), str(target))


# -- Concat, Stack ------------------------------------------------------------------------------
@pytest.mark.parametrize(("shapes", "axis"), [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3), (2, 2)], -1), ([(5,)], 0),
    ([(0, 3), (0, 3)], 1), ([(0,), (3,), (0,)], 0), ([(1, 2, 3), (1, 2, 3)], -3),
], ids=str)
@DTYPES
def test_concat(dtype, shapes, axis):
    xs = [sample(s, dtype, seed=i) for i, s in enumerate(shapes)]
    assert_values(run("Concat", {"xs": xs}, {"axis": axis}), np.concatenate(xs, axis=axis), dtype)


def test_concat_with_mismatched_shapes_is_a_shape_error():
    raises_for("Concat", tp.ShapeError, {"xs": [np.zeros((2, 3)), np.zeros((2, 4))]}, {"axis": 0},
               "input 1 has shape (2, 4)", "(2, 3)", "outside axis 0")
    raises_for("Concat", tp.ShapeError, {"xs": [np.zeros((2, 3)), np.zeros((2, 3, 1))]}, {"axis": 0},
               "input 1")


def test_concat_refuses_0d_inputs_mixed_dtypes_and_bad_axes():
    raises_for("Concat", tp.ShapeError, {"xs": [np.float32(1), np.float32(2)]}, None, "0-d", "use stack")
    raises_for("Concat", tp.DTypeError, {"xs": [np.zeros(2, np.float32), np.zeros(2, np.int32)]}, None,
               "float32", "int32")
    raises_for("Concat", tp.ShapeError, {"xs": [np.zeros(2), np.zeros(2)]}, {"axis": 1}, "axis 1")


@pytest.mark.parametrize(("shape", "n", "axis"), [
    ((2, 3), 3, 0), ((2, 3), 2, 1), ((2, 3), 2, 2), ((2, 3), 2, -1), ((2, 3), 4, -3), ((), 3, 0),
    ((), 1, -1), ((0, 2), 2, 1),
], ids=str)
@DTYPES
def test_stack(dtype, shape, n, axis):
    xs = [sample(shape, dtype, seed=i) for i in range(n)]
    assert_values(run("Stack", {"xs": xs}, {"axis": axis}), np.stack(xs, axis=axis), dtype)


def test_stack_with_unequal_shapes_is_a_shape_error():
    raises_for("Stack", tp.ShapeError, {"xs": [np.zeros((2, 3)), np.zeros((3, 2))]}, None,
               "equal shapes", "input 1 has (3, 2)", "(2, 3)")
    raises_for("Stack", tp.ShapeError, {"xs": [np.zeros(2), np.zeros(2)]}, {"axis": 2}, "axis 2")


# -- Pad ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "widths"), [
    ((3,), ((1, 2),)), ((2, 3), ((0, 0), (1, 1))), ((2, 3), ((2, 0), (0, 3))), ((), ()),
    ((0, 2), ((1, 1), (0, 0))), ((1, 1, 1), ((1, 0), (0, 1), (2, 2))), ((2,), ((0, 0),)),
], ids=str)
@pytest.mark.parametrize("value", [0.0, 1.0, -2.5])
@DTYPES
def test_pad(dtype, shape, widths, value):
    x = sample(shape, dtype)
    if not holds(dtype, value):
        raises_for("Pad", tp.DTypeError, {"x": x}, {"pad_width": widths, "constant_value": value},
                   f"constant_value {value} does not fit in {dtype.name}")
        return
    got = run("Pad", {"x": x}, {"pad_width": widths, "constant_value": value})
    fill = np.array(value).astype(dtype.numpy)  # the constant converted to x's dtype
    assert_values(got, np.pad(x, widths, constant_values=fill) if widths else x, dtype)


def test_pad_needs_one_pair_per_axis_and_non_negative_widths():
    raises_for("Pad", tp.ShapeError, {"x": np.zeros((2, 3))}, {"pad_width": ((1, 1),)},
               "1 pairs for a 2-d input")
    with pytest.raises(tp.ShapeError, match="pad widths must be >= 0"):
        tp.run_kernel("Pad", {"x": np.zeros(2)}, {"pad_width": ((-1, 0),)})


# -- Roll ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "shift", "axis"), [
    ((5,), (2,), (0,)), ((5,), (-7,), (0,)), ((2, 3), (1, -1), (0, 1)), ((2, 3, 4), (1,), (2, 0)),
    ((2, 3), (1, 2), (1, 1)), ((2, 3), (4,), (-1,)), ((0, 3), (1, 1), (0, 1)), ((), (), ()),
    ((3, 1), (5, 5), (0, 1)),
], ids=str)
@DTYPES
def test_roll(dtype, shape, shift, axis):
    x = sample(shape, dtype)
    want = np.roll(x, shift, axis) if axis else x
    assert_values(run("Roll", {"x": x}, {"shift": shift, "axis": axis}), want, dtype)


@pytest.mark.parametrize(("shape", "shift", "axis", "fragments"), [
    ((2, 3), (1, 2), (0,), ("shift (1, 2) and axis (0,)", "same length")),
    ((2, 3), (1,), (2,), ("axis 2 is out of range",)),
    ((), (1,), (0,), ("0-d input has no axis",)),
], ids=str)
def test_roll_refuses_unequal_lengths_and_bad_axes(shape, shift, axis, fragments):
    raises_for("Roll", tp.ShapeError, {"x": np.zeros(shape, np.float32)}, {"shift": shift, "axis": axis},
               *fragments)
