"""The kernel specs are the one source of shape rules and their messages: an op that checks an
axis or a shape before it dispatches asks its kernel's spec (the rule functions of
``tensorplug.families.<family>.spec``), so the op and the spec refuse the same inputs with the same words (the
op's name in front), and agree on the output shapes of good ones."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import TensorInfo, get_kernel_spec
from tensorplug.families.linalg.spec import matmul_shape
from tensorplug.families.manipulation.spec import broadcast_target, permutation, reshaped_shape
from tensorplug.kernels.shape_rules import broadcast_shapes, normalize_axes, normalize_axis, op_prefix

A = np.ones((2, 3, 4), np.float32)
F32, F64, I64 = tp.float32, tp.float64, tp.int64


def _info(shape: tuple[int, ...], dtype: Any = F32) -> TensorInfo:
    return TensorInfo(shape, dtype)


# (op name, the op's call, kernel name, the kernel's input infos, the kernel's attrs): the same
# bad input, once through the public op and once through the kernel spec.
BAD = [
    ("sum", lambda: tp.sum(A, axis=3), "Sum", [_info((2, 3, 4))], {"axis": (3,)}),
    ("sum", lambda: tp.sum(A, axis=(0, -3)), "Sum", [_info((2, 3, 4))], {"axis": (0, -3)}),
    ("mean", lambda: tp.mean(A, axis=-4), "Sum", [_info((2, 3, 4))], {"axis": (-4,)}),
    ("max", lambda: tp.max(np.zeros((0, 3), np.float32), axis=0), "Max", [_info((0, 3))], {"axis": (0,)}),
    ("min", lambda: tp.min(np.zeros((2, 0), np.float32)), "Min", [_info((2, 0))], {"axis": None}),
    ("argmax", lambda: tp.argmax(np.zeros(0, np.float32)), "ArgMax", [_info((0,))], {"axis": None}),
    ("argmin", lambda: tp.argmin(np.zeros((0, 2), np.float32), axis=0), "ArgMin", [_info((0, 2))],
     {"axis": 0}),
    ("argmax", lambda: tp.argmax(A, axis=-4), "ArgMax", [_info((2, 3, 4))], {"axis": -4}),
    ("cumulative_sum", lambda: tp.cumulative_sum(A, axis=3), "Cumsum", [_info((2, 3, 4))], {"axis": 3}),
    ("reshape", lambda: tp.reshape(A, (5, 5)), "Reshape", [_info((2, 3, 4))], {"shape": (5, 5)}),
    ("reshape", lambda: tp.reshape(A, (-1, 5)), "Reshape", [_info((2, 3, 4))], {"shape": (-1, 5)}),
    ("reshape", lambda: tp.reshape(A, (-1, -1)), "Reshape", [_info((2, 3, 4))], {"shape": (-1, -1)}),
    ("permute_dims", lambda: tp.permute_dims(A, (0, 1)), "Transpose", [_info((2, 3, 4))], {"perm": (0, 1)}),
    ("permute_dims", lambda: tp.permute_dims(A, (0, 1, 1)), "Transpose", [_info((2, 3, 4))],
     {"perm": (0, 1, 1)}),
    ("permute_dims", lambda: tp.permute_dims(A, (0, 1, -4)), "Transpose", [_info((2, 3, 4))],
     {"perm": (0, 1, -4)}),
    ("broadcast_to", lambda: tp.broadcast_to(A, (3, 4)), "BroadcastTo", [_info((2, 3, 4))],
     {"shape": (3, 4)}),
    ("broadcast_to", lambda: tp.broadcast_to(A, (2, 5, 4)), "BroadcastTo", [_info((2, 3, 4))],
     {"shape": (2, 5, 4)}),
    ("concat", lambda: tp.concat([A, A[0]]), "Concat", [_info((2, 3, 4)), _info((3, 4))], {"axis": 0}),
    ("concat", lambda: tp.concat([A, A[:, :2]]), "Concat", [_info((2, 3, 4)), _info((2, 2, 4))],
     {"axis": 0}),
    ("concat", lambda: tp.concat([A, A], axis=3), "Concat", [_info((2, 3, 4))] * 2, {"axis": 3}),
    ("concat", lambda: tp.concat([np.float32(1), np.float32(2)]), "Concat", [_info(())] * 2, {"axis": 0}),
    ("stack", lambda: tp.stack([A, A[0]]), "Stack", [_info((2, 3, 4)), _info((3, 4))], {"axis": 0}),
    ("stack", lambda: tp.stack([A, A], axis=-5), "Stack", [_info((2, 3, 4))] * 2, {"axis": -5}),
    ("pad", lambda: tp.pad(A, ((1, 0), (0, -2), (0, 0))), "Pad", [_info((2, 3, 4))],
     {"pad_width": ((1, 0), (0, -2), (0, 0))}),
    ("take", lambda: tp.take(A, [0], axis=3), "Gather", [_info((2, 3, 4)), _info((1,), I64)], {"axis": 3}),
    ("take", lambda: tp.take(np.float32(1), [0], axis=0), "Gather", [_info(()), _info((1,), I64)],
     {"axis": 0}),
    ("softmax", lambda: tp.nn.softmax(A, axis=3), "Softmax", [_info((2, 3, 4))], {"axis": 3}),
    ("one_hot", lambda: tp.nn.one_hot([1, 2], -1), "OneHot", [_info((2,), I64)], {"depth": -1}),
    ("matmul", lambda: tp.matmul(np.ones((2, 3)), np.ones((2, 3))), "MatMul",
     [_info((2, 3), F64), _info((2, 3), F64)], {}),
    ("matmul", lambda: tp.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2))), "MatMul",
     [_info((2, 2, 3), F64), _info((3, 3, 2), F64)], {}),
    ("zeros", lambda: tp.zeros((2, -1)), "Fill", [], {"shape": (2, -1), "value": 0}),
    ("arange", lambda: tp.arange(0, 3, 0), "Range", [], {"start": 0, "stop": 3, "step": 0}),
    ("uniform", lambda: tp.random.uniform((2,), seed=0, dtype=tp.int32), "RandomUniform", [],
     {"shape": (2,), "seed": 0, "dtype": tp.int32}),
]


def _spec_error(kernel: str, infos: list[TensorInfo], attrs: dict[str, Any]) -> BaseException:
    spec = get_kernel_spec(kernel)
    with pytest.raises(tp.TensorplugError) as exc:
        spec.check(infos, spec.normalize_attrs(attrs))
    return exc.value


@pytest.mark.parametrize(("op", "call", "kernel", "infos", "attrs"), BAD,
                         ids=[f"{op}-{i}" for i, (op, *_) in enumerate(BAD)])
def test_an_op_and_its_kernel_spec_refuse_alike_in_the_same_words(op, call, kernel, infos, attrs):
    reason = _spec_error(kernel, infos, attrs)
    with pytest.raises(tp.TensorplugError) as exc:
        call()
    assert type(exc.value) is type(reason)
    assert str(exc.value) == f"{op}: {reason}"


def test_the_engine_puts_the_kernel_in_front_of_the_same_reason():
    reason = _spec_error("Sum", [_info((2, 3, 4))], {"axis": (3,)})
    with pytest.raises(tp.ShapeError) as exc:
        tp.run_kernel("Sum", {"x": A}, {"axis": (3,)})
    assert str(exc.value).startswith("Kernel 'Sum' on backend ")
    assert str(exc.value).endswith(f"): {reason}")


# (the op's call, kernel name, input infos, attrs): good inputs; the op's output has the shape
# the spec infers for the kernel call it stands for.
GOOD = [
    (lambda: tp.sum(A, axis=(0, 2), keepdims=True), "Sum", [_info((2, 3, 4))],
     {"axis": (0, 2), "keepdims": True}),
    (lambda: tp.max(A, axis=-1), "Max", [_info((2, 3, 4))], {"axis": (-1,)}),
    (lambda: tp.argmax(A, axis=1, keepdims=True), "ArgMax", [_info((2, 3, 4))],
     {"axis": 1, "keepdims": True}),
    (lambda: tp.argmax(np.float32(1), axis=0), "ArgMax", [_info(())], {"axis": 0}),
    (lambda: tp.reshape(A, (-1, 4)), "Reshape", [_info((2, 3, 4))], {"shape": (-1, 4)}),
    (lambda: tp.permute_dims(A, (2, 0, -2)), "Transpose", [_info((2, 3, 4))], {"perm": (2, 0, -2)}),
    (lambda: tp.broadcast_to(np.ones((3, 1)), (2, 3, 4)), "BroadcastTo", [_info((3, 1), F64)],
     {"shape": (2, 3, 4)}),
    (lambda: tp.concat([A, A[:, :1]], axis=-2), "Concat", [_info((2, 3, 4)), _info((2, 1, 4))],
     {"axis": -2}),
    (lambda: tp.stack([A, A, A], axis=-1), "Stack", [_info((2, 3, 4))] * 3, {"axis": -1}),
    (lambda: tp.pad(A, ((1, 0), (0, 2), (3, 3))), "Pad", [_info((2, 3, 4))],
     {"pad_width": ((1, 0), (0, 2), (3, 3))}),
    (lambda: tp.take(A, [[0, 1], [2, 0]], axis=1), "Gather", [_info((2, 3, 4)), _info((2, 2), I64)],
     {"axis": 1}),
    (lambda: tp.nn.one_hot([1, 2, 0], 4), "OneHot", [_info((3,), I64)], {"depth": 4}),
    (lambda: tp.matmul(np.ones((5, 2, 3)), np.ones((3, 4))), "MatMul",
     [_info((5, 2, 3), F64), _info((3, 4), F64)], {}),
    (lambda: tp.arange(1, 10, 4), "Range", [], {"start": 1, "stop": 10, "step": 4}),
]


@pytest.mark.parametrize(("call", "kernel", "infos", "attrs"), GOOD,
                         ids=[f"{k}-{i}" for i, (_, k, *_) in enumerate(GOOD)])
def test_an_op_has_the_output_shape_its_kernel_spec_infers(call, kernel, infos, attrs):
    spec = get_kernel_spec(kernel)
    (out,) = spec.check(infos, spec.normalize_attrs(attrs))
    assert call().shape == out.shape


# -- the shared rules themselves -----------------------------------------------------------------
@pytest.mark.parametrize(("axis", "ndim", "allow_0d", "expected"), [
    (0, 3, False, 0), (-1, 3, False, 2), (np.int64(-3), 3, False, 0), (0, 0, True, 0), (-1, 0, True, 0),
    (3, 3, False, "axis 3 is out of range for a 3-d input (valid: -3..2)."),
    (0, 0, False, "axis 0 is out of range for a 0-d input (valid: none, a 0-d input has no axes)."),
    (1, 0, True, "axis 1 is out of range for a 0-d input (valid: -1..0)."),
    (1.0, 2, False, "axis must be an int, got 1.0."),
    (True, 2, False, "axis must be an int, got True."),
], ids=str)
def test_normalize_axis(axis, ndim, allow_0d, expected):
    if isinstance(expected, int):
        assert normalize_axis(axis, ndim, "f", allow_0d=allow_0d) == expected
        return
    with pytest.raises(tp.ShapeError) as exc:
        normalize_axis(axis, ndim, "f", allow_0d=allow_0d)
    assert str(exc.value) == f"f: {expected}"
    with pytest.raises(tp.ShapeError) as exc:
        normalize_axis(axis, ndim, allow_0d=allow_0d)  # a spec's own rule: no op in front
    assert str(exc.value) == expected


@pytest.mark.parametrize(("axis", "ndim", "expected"), [
    (None, 3, (0, 1, 2)), (-1, 3, (2,)), ([2, -3], 3, (0, 2)), ((), 3, ()), (np.int64(1), 2, (1,)),
    (None, 0, ()), (0, 0, ()), ((-1,), 0, ()),
], ids=str)
def test_normalize_axes(axis, ndim, expected):
    assert normalize_axes(axis, ndim, "f") == expected


def test_normalize_axes_refuses_an_axis_named_twice_or_out_of_range():
    with pytest.raises(tp.ShapeError, match=r"^f: axis \(1, -1\) names an axis of the 2-d input twice; "
                                            r"name each axis once\.$"):
        normalize_axes((1, -1), 2, "f")
    with pytest.raises(tp.ShapeError, match=r"^f: axis 2 is out of range for a 2-d input"):
        normalize_axes((0, 2), 2, "f")


def test_op_prefix_and_broadcast_shapes():
    assert op_prefix("sum") == "sum: " and op_prefix(None) == ""
    assert broadcast_shapes((3, 1), (2, 1, 4), op="f") == (2, 3, 4)
    with pytest.raises(tp.ShapeError, match=r"^f: shapes \(2,\), \(3,\) cannot be broadcast together "
                                            r"\(axis -1: sizes \[2, 3\]\)"):
        broadcast_shapes((2,), (3,), op="f")


@pytest.mark.parametrize(("a", "b"), [
    ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((4, 2, 3), (3,)), ((3,), (5, 3, 2)),
    ((2, 3), (3, 4)), ((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)),
], ids=str)
def test_matmul_shape_is_numpys_rule(a, b):
    assert matmul_shape(a, b) == np.matmul(np.ones(a), np.ones(b)).shape


@pytest.mark.parametrize(("a", "b", "fragment"), [
    ((3,), (4,), "3 (only axis of the first input) != 4 (only axis of the second)"),
    ((2, 3), (2, 3), "3 (last axis of the first input) != 2 (second-to-last axis of the second)"),
    ((), (3,), "0-d inputs are not matrices"),
], ids=str)
def test_matmul_shape_refusals_name_the_axes(a, b, fragment):
    with pytest.raises(tp.ShapeError) as exc:
        matmul_shape(a, b, "matmul")
    assert str(exc.value).startswith("matmul: ") and fragment in str(exc.value)


@pytest.mark.parametrize(("shape", "new"), [((2, 3), (3, 2)), ((2, 3), (-1,)), ((0, 3), (3, -1)),
                                            ((), (1, 1)), ((4,), (2, -1, 1))], ids=str)
def test_reshaped_shape_is_numpys_rule(shape, new):
    assert reshaped_shape(shape, new) == np.reshape(np.zeros(shape), new).shape


@pytest.mark.parametrize(("shape", "target"), [((3,), (2, 3)), ((3, 1), (2, 3, 4)), ((), (2,)),
                                               ((1,), (0,))], ids=str)
def test_broadcast_target_is_numpys_rule(shape, target):
    assert broadcast_target(shape, target) == np.broadcast_to(np.zeros(shape), target).shape


@pytest.mark.parametrize(("perm", "why"), [((0,), "it has 1 entry;"), ((0, 0), "it names an axis twice"),
                                           ((0, 2), "axis 2 is out of range (valid: -2..1)")], ids=str)
def test_permutation_says_what_is_wrong(perm, why):
    assert permutation((2, 3), (1, -2)) == (1, 0)
    with pytest.raises(tp.ShapeError) as exc:
        permutation((2, 3), perm, "permute_dims")
    assert str(exc.value).startswith(f"permute_dims: axes {perm} is not a permutation of the 2 axes of "
                                     "shape (2, 3): ") and why in str(exc.value)
