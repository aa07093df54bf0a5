"""Tensor and Variable: construction, operators (incl. reflected ones and numpy operands),
conversion to numpy and Python, repr, len, iteration, truth value, and Variable state."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import tensorplug as tp


def test_tensors_are_made_by_ops_not_by_the_constructor():
    with pytest.raises(tp.ArgumentError,
                       match=r"Tensors are made by ops: use tp\.asarray\(data\), tp\.zeros\(shape\)"):
        tp.Tensor([1.0])


def test_properties():
    x = tp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert (x.shape, x.dtype, x.ndim, x.size) == ((2, 3), tp.float32, 2, 6)
    assert (x.backend, x.device) == ("numpy", "cpu")
    assert isinstance(x.native, np.ndarray)
    s = tp.asarray(2)
    assert (s.shape, s.dtype, s.ndim, s.size) == ((), tp.int64, 0, 1)


BINARY = [
    (operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
    (operator.truediv, np.true_divide), (operator.floordiv, np.floor_divide), (operator.pow, np.power),
    (operator.mod, np.remainder),
    (operator.eq, np.equal), (operator.ne, np.not_equal), (operator.lt, np.less),
    (operator.le, np.less_equal), (operator.gt, np.greater), (operator.ge, np.greater_equal),
]


@pytest.mark.parametrize("op, ref", BINARY, ids=[o.__name__ for o, _ in BINARY])
def test_binary_operators_and_their_reflections(op, ref):
    a = np.array([[1.5, 2.0], [3.0, 4.0]], dtype=np.float32)
    b = np.array([2.0, 0.5], dtype=np.float32)
    x, y = tp.asarray(a), tp.asarray(b)
    for left, right, expected in [
        (x, y, ref(a, b)),          # tensor op tensor
        (x, 2.0, ref(a, np.float32(2.0))),  # tensor op scalar
        (2.0, x, ref(np.float32(2.0), a)),  # reflected
        (b, x, ref(b, a)),          # numpy array on the left: numpy defers to the Tensor
        (x, b, ref(a, b)),
    ]:
        out = op(left, right)
        assert isinstance(out, tp.Tensor), (left, right)
        assert out.dtype.numpy == expected.dtype
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


INTEGER_BINARY = [
    (operator.mod, np.remainder), (operator.and_, np.bitwise_and), (operator.or_, np.bitwise_or),
    (operator.xor, np.bitwise_xor), (operator.lshift, np.left_shift), (operator.rshift, np.right_shift),
]


@pytest.mark.parametrize("op, ref", INTEGER_BINARY, ids=[o.__name__ for o, _ in INTEGER_BINARY])
def test_integer_operators_and_their_reflections(op, ref):
    """Bitwise on integers (not the logical ops they were once), with weak Python ints: an
    int32 tensor stays int32."""
    a = np.array([[7, -8], [5, 3]], dtype=np.int32)
    b = np.array([2, 3], dtype=np.int32)
    x, y = tp.asarray(a), tp.asarray(b)
    for left, right, expected in [
        (x, y, ref(a, b)), (x, 2, ref(a, np.int32(2))), (3, x, ref(np.int32(3), a)),
        (b, x, ref(b, a)), (x, b, ref(a, b)), (x, tp.asarray(b.astype(np.int64)), ref(a, b.astype(np.int64))),
    ]:
        out = op(left, right)
        assert isinstance(out, tp.Tensor), (left, right)
        assert out.dtype.numpy == expected.dtype
        np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("op, ref", [(operator.and_, np.logical_and), (operator.or_, np.logical_or),
                                     (operator.xor, np.logical_xor)], ids=["and", "or", "xor"])
def test_bitwise_operators_of_bools_are_logical(op, ref):
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    for left, right in [(tp.asarray(a), tp.asarray(b)), (tp.asarray(a), True), (False, tp.asarray(b))]:
        out = op(left, right)
        assert out.dtype is tp.bool
        np.testing.assert_array_equal(out.numpy(), ref(np.asarray(left), np.asarray(right)))
    assert (~tp.asarray(a)).tolist() == [False, False, True, True]
    assert (~tp.asarray(np.array([0, -1, 5], np.int32))).tolist() == [-1, 0, -6]


def test_operators_refuse_what_the_standard_leaves_out():
    f, i = tp.asarray([1.5, 2.0]), tp.asarray([1, 2])
    for bad in (lambda: f & f, lambda: 1 | f, lambda: ~f, lambda: f ^ i, lambda: f << 1, lambda: i >> 0.5):
        with pytest.raises(tp.DTypeError, match=r"takes integer (or bool )?tensors, got float"):
            bad()
    with pytest.raises(tp.DTypeError, match="remainder does not accept bool tensors"):
        tp.asarray([True]) % True
    for bad in (lambda: i << -1, lambda: i >> -3, lambda: tp.bitwise_left_shift(i, -1)):
        with pytest.raises(tp.ShapeError, match=r"bitwise_(left|right)_shift: x2 \(the shift\) must be >= 0"):
            bad()
    assert (i % 0).tolist() == [0, 0]  # integers modulo 0: 0, as floor division by 0


def test_numpy_operand_gives_a_tensor_for_every_operator():
    arr = np.array([1.0, 2.0], dtype=np.float32)
    t = tp.asarray([3.0, 4.0])
    for result in (arr + t, arr - t, arr * t, arr / t, arr ** t, arr @ t, arr < t, arr == t):
        assert isinstance(result, tp.Tensor)
    assert (arr - t).tolist() == [-2.0, -2.0]
    assert (arr @ t).item() == 11.0


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_numpy_ufuncs_on_tensors_run_tensorplugs_ops(backend):
    """np.exp(t) is tp.exp(t): a tensor (on the active backend, as every op), differentiable;
    ufuncs tensorplug has no op for, and ufunc methods, run in numpy on the values."""
    with tp.backend_scope(backend):
        t = tp.asarray([0.5, 2.0])
        pairs = ((np.exp, tp.exp), (np.sqrt, tp.sqrt), (np.negative, tp.negative), (np.tanh, tp.tanh))
        for ufunc, op in pairs:
            out = ufunc(t)
            assert isinstance(out, tp.Tensor) and out.backend == backend and out.dtype == tp.float32
            np.testing.assert_allclose(out.numpy(), op(t).numpy(), rtol=1e-6)
        assert isinstance(np.maximum(t, 1.0), tp.Tensor) and np.maximum(t, 1.0).tolist() == [1.0, 2.0]
        grad = tp.grad(lambda x: tp.sum(np.exp(x) * np.array([1.0, 2.0], np.float32)))(t)
        np.testing.assert_allclose(grad.numpy(), np.exp([0.5, 2.0]) * [1.0, 2.0], rtol=1e-6)
        other = np.fmod(t, 0.75)  # no tensorplug op: numpy's result
        assert isinstance(other, np.ndarray) and np.allclose(other, [0.5, 0.5])
        for ufunc, args in ((np.arctan2, (t, 2.0)), (np.remainder, (t, 0.75)), (np.arccos, (t / 4,))):
            out = ufunc(*args)  # the Array API functions added later (atan2, remainder, acos) too
            assert isinstance(out, tp.Tensor) and out.backend == backend and out.dtype == tp.float32
            np.testing.assert_allclose(out.numpy(), ufunc(*(np.asarray(a) for a in args)), rtol=1e-6)
        assert np.add.reduce(t) == 2.5 and isinstance(np.exp(t, dtype=np.float64), np.ndarray)


def test_numpy_ufuncs_never_write_into_a_tensor():
    t = tp.asarray([1.0, 2.0])
    arr = np.zeros(2, np.float32)
    arr += t  # into the numpy array: fine
    assert arr.tolist() == [1.0, 2.0]
    for write in (lambda: np.add(t, t, out=t), lambda: np.add.at(t, [0], 1.0)):
        with pytest.raises(TypeError, match="cannot write into a tensorplug Tensor: tensors are immutable"):
            write()
    assert t.tolist() == [1.0, 2.0]


def test_unary_operators_and_matmul():
    x = tp.asarray([[1.0, -2.0], [3.0, 4.0]])
    assert (-x).tolist() == [[-1.0, 2.0], [-3.0, -4.0]]
    assert (+x) is x
    assert abs(x).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert (~tp.asarray([True, False])).tolist() == [False, True]
    assert (tp.asarray([True, False]) & True).tolist() == [True, False]
    assert (tp.asarray([True, False]) | tp.asarray([False, False])).tolist() == [True, False]
    assert (x @ x).tolist() == [[-5.0, -10.0], [15.0, 10.0]]
    assert ([[1.0, 0.0], [0.0, 1.0]] @ x).tolist() == x.tolist()
    assert (x @ [1.0, 1.0]).tolist() == [-1.0, 7.0]
    assert x.T.tolist() == [[1.0, 3.0], [-2.0, 4.0]]
    assert tp.asarray(np.ones((2, 3, 4))).mT.shape == (2, 4, 3)
    with pytest.raises(tp.ShapeError, match=r"Tensor\.T needs a 2-d tensor, got shape \(3,\)"):
        tp.asarray([1.0, 2.0, 3.0]).T  # noqa: B018


def test_comparisons_give_bool_tensors():
    x = tp.asarray([1, 2, 3])
    assert (x == 2).dtype is tp.bool and (x == 2).tolist() == [False, True, False]
    assert (x != 2).tolist() == [True, False, True]
    assert (x < 2).tolist() == [True, False, False] and (2 < x).tolist() == [False, False, True]  # noqa: SIM300
    assert (x >= 2.5).tolist() == [False, False, True]


def test_astype():
    x = tp.asarray([1.7, -1.7, 0.0])
    assert x.astype(tp.int32).tolist() == [1, -1, 0] and x.astype(tp.int32).dtype is tp.int32
    assert x.astype("float64").dtype is tp.float64
    assert x.astype(bool).tolist() == [True, True, False]
    assert x.astype(tp.float32) is x
    c = x.astype(tp.complex64)
    assert c.dtype is tp.complex64
    np.testing.assert_array_equal(c.numpy(), x.numpy().astype(np.complex64))
    with pytest.raises(tp.DTypeError, match=r"cannot cast complex64 to float32: it would drop the imaginary"):
        x.astype(tp.complex64).astype(tp.float32)
    with pytest.raises(tp.DTypeError, match=r"dtype datetime64\[s\] is not supported by tensorplug; "
                       r"supported dtypes are bool, int8, int16, int32, int64, uint8, .*, complex128"):
        x.astype("datetime64[s]")


def test_numpy_is_read_only_and_array_protocol():
    x = tp.asarray([1.0, 2.0])
    view = x.numpy()
    assert isinstance(view, np.ndarray) and view.dtype == np.float32
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    arr = np.asarray(x)
    assert arr.dtype == np.float32 and arr.tolist() == [1.0, 2.0]
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    copy = np.array(x, copy=True)
    copy[0] = 9.0
    assert x.tolist() == [1.0, 2.0]


def test_numpy_is_read_only_whatever_the_backend_hands_out():
    """A backend whose to_numpy gives a writable alias of its array (issue 18) cannot let a
    caller change an immutable tensor: the core hands out a read-only view."""
    from tensorplug.extend import Backend, BackendConfig, register_backend

    class Aliasing(Backend):
        def from_numpy(self, array):
            return np.array(array, copy=True)

        def to_numpy(self, native):
            return native  # the backend's own array, writable

    register_backend(BackendConfig("aliasing", Aliasing, priority=-5))
    x = tp.asarray([[1.0, 2.0]], backend="aliasing")
    view = x.numpy()
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 99.0
    assert x.tolist() == [[1.0, 2.0]] and np.shares_memory(view, x.native)


def test_item_tolist_and_python_numbers():
    assert tp.asarray(2.5).item() == 2.5 and isinstance(tp.asarray(2.5).item(), float)
    assert tp.asarray([[7]]).item() == 7 and isinstance(tp.asarray(7).item(), int)
    assert tp.asarray(True).item() is True
    assert tp.asarray([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert float(tp.asarray(1.5)) == 1.5 and int(tp.asarray(3)) == 3
    assert [10, 20, 30][tp.asarray(1)] == 20  # __index__
    with pytest.raises(tp.ShapeError, match=r"item\(\) needs a tensor with one element, got shape \(2,\)"):
        tp.asarray([1.0, 2.0]).item()
    with pytest.raises(TypeError, match=r"only integer tensors with one element can be used as an index"):
        [1, 2][tp.asarray(1.0)]


def test_repr_is_numpy_like_and_names_dtype_and_backend():
    assert repr(tp.asarray([1.0, 2.0])) == "Tensor([1., 2.], dtype=float32, backend='numpy')"
    assert repr(tp.asarray(3)) == "Tensor(3, dtype=int64, backend='numpy')"
    assert repr(tp.asarray([[1, 2], [3, 4]], dtype=tp.int32)) == (
        "Tensor([[1, 2],\n        [3, 4]], dtype=int32, backend='numpy')")
    assert repr(tp.asarray([True, False])) == "Tensor([ True, False], dtype=bool, backend='numpy')"
    assert str(tp.asarray([1.0, 2.0])) == "[1. 2.]"


def test_len_and_iteration():
    x = tp.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3 and all(isinstance(r, tp.Tensor) for r in rows)
    assert [r.tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert [v.item() for v in tp.asarray([1, 2, 3])] == [1, 2, 3]
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        len(tp.asarray(1.0))
    with pytest.raises(TypeError, match=r"iteration over a 0-d tensor"):
        iter(tp.asarray(1.0))


def test_truth_value():
    assert bool(tp.asarray(1.0)) and not bool(tp.asarray([0]))
    assert bool(tp.asarray([[True]]))
    with pytest.raises(tp.ShapeError, match=r"The truth value of a tensor of shape \(2,\) is ambiguous; use "
                       r"tp\.any\(x\) or tp\.all\(x\)"):
        bool(tp.asarray([1.0, 2.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        if tp.asarray([1, 2]) == tp.asarray([1, 2]):
            pass


def test_tensors_are_unhashable_and_immutable():
    x = tp.asarray([1.0])
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    with pytest.raises(AttributeError):
        x.foo = 1
    with pytest.raises(TypeError):
        x[0] = 2.0


# -- Variable --------------------------------------------------------------------------------
def test_variable_assign_and_assign_add():
    v = tp.Variable([1.0, 2.0], name="toy_var")
    assert isinstance(v, tp.Tensor) and v.name == "toy_var" and v.trainable
    same = v.assign([3.0, 4.0])
    assert same is v and v.tolist() == [3.0, 4.0]
    v.assign_add([1.0, 1.0])
    assert v.tolist() == [4.0, 5.0]
    v.assign_sub(tp.asarray([4.0, 5.0]))
    assert v.tolist() == [0.0, 0.0]
    v.assign([7, 8])  # converted to the variable's dtype
    assert v.dtype is tp.float32 and v.tolist() == [7.0, 8.0]
    assert (v * 2.0).tolist() == [14.0, 16.0]  # ops read the current value
    assert repr(v) == "Variable([7., 8.], name='toy_var', dtype=float32, backend='numpy')"


def test_variable_assign_of_another_shape_is_a_shape_error():
    v = tp.Variable([1.0, 2.0], name="toy_var")
    with pytest.raises(tp.ShapeError,
                       match=r"cannot assign a value of shape \(3,\) to Variable 'toy_var' of shape \(2,\)"):
        v.assign([1.0, 2.0, 3.0])
    assert v.tolist() == [1.0, 2.0]


def test_variable_names_are_unique_among_live_variables():
    a = tp.Variable(1.0, name="toy_unique")
    with pytest.raises(tp.RegistrationError, match=r"a live Variable named 'toy_unique' exists already"):
        tp.Variable(2.0, name="toy_unique")
    b, c = tp.Variable(1.0), tp.Variable(1.0)
    assert len({a.name, b.name, c.name}) == 3
    del a
    assert tp.Variable(3.0, name="toy_unique").item() == 3.0  # the name is free again


def test_a_variable_only_a_reference_cycle_keeps_is_not_live():
    """Its name is free without a gc.collect() by the caller (a notebook cell run again)."""
    import gc

    gc.collect()
    gc.disable()  # (so that only the Variable's own check collects)
    try:
        v = tp.Variable(1.0, name="toy_cycle")
        holder = {"v": v}
        holder["self"] = holder
        del v, holder
        assert tp.Variable(2.0, name="toy_cycle").item() == 2.0
    finally:
        gc.enable()


def test_variable_dtype_and_trainable():
    v = tp.Variable([1, 2], dtype=tp.float64, trainable=False, name="toy_frozen")
    assert v.dtype is tp.float64 and not v.trainable
    from tensorplug.core.variable import trainable_variables
    w = tp.Variable(1.0, name="toy_trained")
    assert all(t is not v for t in trainable_variables())
    assert any(t is w for t in trainable_variables())


def test_the_array_api_version_is_2025_12_with_its_tuples():
    t = tp.ones((2, 1))
    assert tp.__array_api_version__ == "2025.12"
    assert t.__array_namespace__(api_version="2025.12") is tp and t.__array_namespace__() is tp
    with pytest.raises(tp.ArgumentError, match=r"standard 2025.12 \(and 2021.12, .*2024.12\), not '2026.12'"):
        t.__array_namespace__(api_version="2026.12")
    assert isinstance(tp.__array_namespace_info__().devices(), tuple)
    assert isinstance(tp.broadcast_arrays(t, tp.ones(3)), tuple)
    assert isinstance(tp.meshgrid(tp.ones(2), tp.ones(3)), tuple)
