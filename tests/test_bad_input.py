"""Bad input at the op boundary (issue 17): each case gives a tensorplug error that is also the
built-in a user would catch, naming the op and the argument, on each first-party backend. Huge
shapes are refused before anything is allocated (on jax they used to abort the process)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.backends.lifecycle import Backend

BACKENDS = ("numpy", "jax")


def _x() -> tp.Tensor:
    return tp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def _custom_grad_float() -> Any:
    return tp.custom_grad(lambda a: (3.0, lambda d: d))(_x())


Errors = tuple[type[Exception], ...]
# (label, call, error types, message pattern)
CASES: list[tuple[str, Callable[[], Any], Errors, str]] = [
    # a backend name that is not a string
    ("set_backend(array)", lambda: tp.set_backend(np.array([1, 2])), (tp.ArgumentError, TypeError),
     r"set_backend: name must be a backend name \(a str"),
    ("backend_scope(list)", lambda: tp.backend_scope([1]).__enter__(), (tp.ArgumentError, TypeError),
     "backend_scope: name must be a backend name"),
    ("to_backend(x, tensor)", lambda: tp.to_backend(_x(), _x()), (tp.ArgumentError, TypeError),
     "to_backend: backend must be a backend name"),
    ("devices(list)", lambda: tp.devices([None]), (tp.ArgumentError, TypeError),
     "devices: backend must be"),
    ("set_backend(np.float16)", lambda: tp.set_backend(np.float16), (tp.ArgumentError,),
     "set_backend: name must be a backend name .* got <class 'numpy.float16'>"),
    ("asarray(backend=1)", lambda: tp.asarray([1.0], backend=1), (tp.ArgumentError, TypeError),
     "asarray: backend must be"),
    # an axis given as a float, a non-scalar tensor or a numpy array
    ("sum(axis=0.5)", lambda: tp.sum(_x(), axis=0.5), (tp.ShapeError, ValueError),
     "sum: axis must be an int"),
    ("flip(axis=float tensor)", lambda: tp.flip(_x(), axis=tp.asarray([1.0, 0.0])), (tp.ShapeError,),
     "flip: axis must be an int"),
    ("softmax(axis=array)", lambda: tp.nn.softmax(_x(), axis=np.array([0, 1])), (tp.ShapeError,),
     "softmax: axis must be an int"),
    ("expand_dims(axis=array 1.5)", lambda: tp.expand_dims(_x(), axis=np.array(1.5)), (tp.ShapeError,),
     "expand_dims: axis must be an int"),
    ("take(axis=float tensor)", lambda: tp.take(_x(), tp.asarray([0]), axis=tp.asarray([1.0])),
     (tp.TensorplugError,), "axis must be an int"),
    # a tensor or an array as dtype
    ("zeros(dtype=tensor)", lambda: tp.zeros((2,), dtype=_x()), (tp.DTypeError, TypeError),
     "zeros: dtype: .*not supported"),
    ("astype(x, tensor)", lambda: tp.astype(_x(), _x()), (tp.DTypeError, TypeError),
     "astype: dtype: .*not supported"),
    ("x.astype(name)", lambda: _x().astype("bogus"), (tp.DTypeError,), "astype: dtype: .*not supported"),
    ("sum(dtype=name)", lambda: tp.sum(_x(), dtype="bogus"), (tp.DTypeError,), "sum: dtype: .*not supported"),
    ("prod(dtype=list)", lambda: tp.prod(_x(), dtype=[1]), (tp.DTypeError,), "prod: dtype: .*not supported"),
    ("cumulative_sum(dtype=int)", lambda: tp.cumulative_sum(_x(), axis=0, dtype=3), (tp.DTypeError,),
     "cumulative_sum: dtype: .*not supported"),
    ("zeros_like(dtype=array)", lambda: tp.zeros_like(_x(), dtype=np.zeros(3)), (tp.DTypeError,),
     "not supported"),
    # shapes, sizes and numbers
    ("zeros((2, None))", lambda: tp.zeros((2, None)), (tp.ArgumentError, TypeError),
     r"zeros: shape \(2, None\) holds None; each size must be an int"),
    ("zeros(tp.float32)", lambda: tp.zeros(tp.float32), (tp.ArgumentError,),
     "zeros: shape must be an int or a sequence of ints"),
    ("zeros((2, 0.5))", lambda: tp.zeros((2, 0.5)), (tp.ArgumentError,), "each size must be an int"),
    ("ones(-1)", lambda: tp.ones(-1), (tp.ShapeError, ValueError), "ones: shape must be >= 0"),
    ("eye((2,))", lambda: tp.eye((2,)), (tp.ArgumentError,), "eye: n_rows must be an int"),
    ("eye(nan)", lambda: tp.eye(float("nan")), (tp.ArgumentError,), "eye: n_rows must be an int"),
    ("one_hot(i, inf)", lambda: tp.nn.one_hot(tp.asarray([0, 1]), float("inf")), (tp.ArgumentError,),
     "one_hot: depth must be an int"),
    ("linspace(0, [1], 3)", lambda: tp.linspace(0, [1], 3), (tp.ArgumentError,),
     "linspace: stop must be a real number"),
    ("linspace(num=nan)", lambda: tp.linspace(0, 1, float("nan")), (tp.ArgumentError,),
     "linspace: num must be an int"),
    ("arange(inf)", lambda: tp.arange(math.inf), (tp.ShapeError,),
     "arange: start, stop and step must be finite"),
    ("arange('a')", lambda: tp.arange("a"), (tp.ArgumentError,), "arange: stop must be a real number"),
    ("var(correction=(1,))", lambda: tp.var(_x(), correction=(1,)), (tp.ArgumentError,),
     "var: correction must be a real number"),
    ("full(2, [1])", lambda: tp.full(2, [1]), (tp.ArgumentError,), "full: fill_value must be a number"),
    ("concat(1.0)", lambda: tp.concat(1.0), (tp.ShapeError,), "concat takes a non-empty sequence"),
    ("run_kernel(tensor)", lambda: tp.run_kernel(_x()), (tp.ArgumentError,),
     "run_kernel: kernel_name must be"),
    # autodiff and jit
    ("grad(f, argnums=None)", lambda: tp.grad(tp.sum, argnums=None), (tp.ArgumentError,),
     "grad: argnums must be an int"),
    ("grad(None)", lambda: tp.grad(None), (tp.ArgumentError,), "grad: f must be a function"),
    ("value_and_grad('f')", lambda: tp.value_and_grad("f"), (tp.ArgumentError,), "value_and_grad: f must be"),
    ("vjp(None, x)", lambda: tp.vjp(None, _x()), (tp.ArgumentError,), "vjp: f must be a function"),
    ("custom_grad(None)", lambda: tp.custom_grad(None), (tp.ArgumentError,), "custom_grad: f must be"),
    ("custom_grad returning a float", _custom_grad_float, (tp.AutodiffError,),
     "must return .* with a Tensor .* as value, got float"),
    ("grad(has_aux=True) of no pair", lambda: tp.grad(tp.sum, has_aux=True)(_x()), (tp.AutodiffError,),
     r"sum was differentiated with has_aux=True, so it must return a pair \(value, aux\); it "
     "returned Tensor"),
    ("value_and_grad(has_aux=1) of a triple", lambda: tp.value_and_grad(lambda x: (tp.sum(x), 1, 2),
                                                                        has_aux=1)(_x()),
     (tp.AutodiffError, ValueError), "returned tuple of length 3"),
    ("jit static argument unhashable", lambda: tp.jit(lambda x, n: x, static_argnums=(1,))(_x(), [1]),
     (tp.ArgumentError, TypeError), "static argument .* must be hashable"),
    ("repeat(x, ragged)", lambda: tp.repeat(_x(), [[1], [2, 3]]), (tp.DTypeError,),
     "repeat: repeats must be non-negative ints"),
    ("repeat(x, huge counts)", lambda: tp.repeat(tp.asarray([1.0, 2.0]), [2**40, 2**40]),
     (tp.OutOfMemoryError, MemoryError), "repeat: the 2199023255552 indices .* do not fit in memory"),
    ("repeat(x, too many counts)", lambda: tp.repeat(tp.asarray([1.0, 2.0]), [2**59, 2**59]),
     (tp.ShapeError,), r"repeat: shape \(1152921504606846976,\) .* past backend"),
    ("repeat(x, huge count)", lambda: tp.repeat(tp.asarray([1.0, 2.0]), 2**60), (tp.ShapeError,),
     r"repeat: shape \(2305843009213693952,\) .* past backend"),
    ("jit('f')", lambda: tp.jit("f"), (tp.ArgumentError,), "jit: f must be a function"),
    ("jit(static_argnums=(None,))", lambda: tp.jit(tp.sum, static_argnums=(None,)), (tp.ArgumentError,),
     "jit: static_argnums must be an int"),
    # numpy arrays as flags, reductions and devices
    ("sum(keepdims=array)", lambda: tp.sum(_x(), axis=0, keepdims=np.array([1, 2])), (tp.ArgumentError,),
     "sum: keepdims must be True or False"),
    ("logsumexp(keepdims=array)", lambda: tp.nn.logsumexp(_x(), keepdims=np.array([1, 2])),
     (tp.ArgumentError,), "logsumexp: keepdims must be True or False"),
    ("cross-entropy(reduction=array)",
     lambda: tp.nn.softmax_cross_entropy(_x(), _x(), reduction=np.array(["mean", "sum"])), (tp.ShapeError,),
     "softmax_cross_entropy: reduction=.* is not one of"),
    ("device_put(x, array)", lambda: tp.device_put(_x(), np.array([1, 2])), (tp.DeviceError,), "no device"),
    ("set_default_device(array)", lambda: tp.set_default_device(np.array([1, 2])), (tp.DeviceError,),
     "no device"),
    ("Variable(trainable=array)", lambda: tp.Variable(_x(), trainable=np.array([1, 2])), (tp.ArgumentError,),
     "Variable: trainable must be True or False"),
    # sizes past the backend's limits, refused before allocation (jax aborted the process)
    ("zeros((2**40, 2**40))", lambda: tp.zeros((2**40, 2**40)), (tp.ShapeError, ValueError),
     r"zeros: shape \(1099511627776, 1099511627776\) has 1208925819614629174706176 elements, past backend"),
    ("eye(10**9)", lambda: tp.eye(10**9), (tp.ShapeError,), "eye: shape .* past backend .*'s limit"),
    ("arange(2**62)", lambda: tp.arange(2**62), (tp.ShapeError,), "arange: shape .* past backend"),
    ("tile(x, (2**40, 2**40))", lambda: tp.tile(_x(), (2**40, 2**40)), (tp.ShapeError,),
     r"tile: shape \(2199023255552, 3298534883328\) .* past backend"),
    ("reshape to 65 axes", lambda: tp.reshape(_x(), (6,) + (1,) * 64), (tp.ShapeError,),
     "reshape: a tensor of 65 axes is past backend .*'s limit of 64 axes"),
    ("expand_dims to 65 axes", lambda: tp.expand_dims(tp.zeros((1,) * 64), axis=0), (tp.ShapeError,),
     "expand_dims: a tensor of 65 axes"),
    ("stack to 65 axes", lambda: tp.stack([tp.zeros((1,) * 64)]), (tp.ShapeError,),
     "stack: a tensor of 65 axes"),
    ("getitem to 65 axes", lambda: tp.zeros((1,) * 64)[None], (tp.ShapeError,),
     "getitem: a tensor of 65 axes"),
    ("random.normal((2**40, 2**40))", lambda: tp.random.normal((2**40, 2**40), seed=0), (tp.ShapeError,),
     "normal: shape .* past backend"),
    ("run_kernel Fill huge", lambda: tp.run_kernel("Fill", {}, {"shape": (2**40, 2**40), "value": 0}),
     (tp.ShapeError,), r"run_kernel\('Fill'\): shape .* past backend"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("label", "call", "errors", "match"), CASES, ids=[c[0] for c in CASES])
def test_bad_argument_is_a_clear_error(label: str, call: Callable[[], Any], errors: Errors, match: str,
                                       backend: str) -> None:
    if backend == "jax":
        pytest.importorskip("jax")
    with tp.backend_scope(backend), pytest.raises(errors[0], match=match) as info:
        call()
    assert isinstance(info.value, (tp.TensorplugError, *errors))
    assert all(isinstance(info.value, e) for e in errors)


def test_a_backend_states_its_own_limits() -> None:
    """A backend's max_elements and max_ndim are what the creation ops hold shapes to."""
    class Small(Backend):
        max_elements = 100
        max_ndim = 3

        def from_numpy(self, array: np.ndarray) -> Any:
            return np.array(array)

        def to_numpy(self, native: Any) -> np.ndarray:
            return np.asarray(native)

    tp.extend.register_backend(tp.extend.BackendConfig("small", Small))
    with tp.backend_scope("small"):
        with pytest.raises(tp.ShapeError, match=r"zeros: shape \(11, 10\) has 110 elements, past backend "
                                                 "'small''s limit of 100"):
            tp.zeros((11, 10))
        with pytest.raises(tp.ShapeError, match="a tensor of 4 axes is past backend 'small''s limit of 3"):
            tp.ones((1, 1, 1, 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_memory_names_kernel_backend_and_shape(backend: str) -> None:
    """Past the memory but within the limits: OutOfMemoryError (a MemoryError), not a 'bug in
    the kernel'."""
    if backend == "jax":
        pytest.importorskip("jax")
    made = r"float32\[1000000, 1000000\]"
    with tp.backend_scope(backend), pytest.raises(tp.OutOfMemoryError, match=(
            rf"Kernel 'Fill' on backend '{backend}' .* ran out of memory making {made}")):
        tp.zeros((10**6, 10**6)).numpy()


def test_reading_a_tensor_that_ran_out_of_memory_is_an_error_not_an_abort() -> None:
    """jax makes tp.eye(3 * 10**8) lazily (within the limits, past the memory); printing it
    aborted the process."""
    pytest.importorskip("jax")
    with tp.backend_scope("jax"):
        big = tp.eye(3 * 10**8)
        with pytest.raises(tp.OutOfMemoryError, match=r"'jax' ran out of memory .* shape \(300000000, "):
            big.numpy()
        with pytest.raises(tp.OutOfMemoryError):
            repr(big)


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_floor_divide_by_zero_is_zero(backend: str) -> None:
    """One documented answer on every backend: an integer divided by 0 gives 0."""
    if backend == "jax":
        pytest.importorskip("jax")
    with tp.backend_scope(backend):
        for dtype in (tp.int32, tp.int64):
            x = tp.asarray([7, -7, 0, 3], dtype=dtype)
            y = tp.asarray([0, 0, 0, 2], dtype=dtype)
            assert tp.floor_divide(x, y).numpy().tolist() == [0, 0, 0, 1]
            assert (x // 0).numpy().tolist() == [0, 0, 0, 0]


def test_the_validators_accept_what_the_ops_took_before() -> None:
    """0-d tensors and numpy scalars where numbers belong, ints as flags, numpy ints as sizes."""
    spaced = tp.linspace(tp.asarray(0.0), np.float32(1.0), np.int64(3))
    np.testing.assert_allclose(spaced.numpy(), [0, 0.5, 1])
    assert tp.arange(tp.asarray(3)).numpy().tolist() == [0, 1, 2]
    assert tp.var(tp.asarray([1.0, 3.0]), correction=tp.asarray(1)).item() == 2.0
    assert tp.pad(tp.ones(2), 1, constant_values=tp.asarray(2.0)).numpy().tolist() == [2, 1, 1, 2]
    assert tp.full((2,), tp.asarray(1.5)).numpy().tolist() == [1.5, 1.5]
    assert tp.sum(tp.ones((2, 2)), axis=0, keepdims=1).shape == (1, 2)
    assert tp.zeros(np.array([2, 3])).shape == (2, 3)
    assert tp.eye(tp.asarray(2), k=np.int32(1)).numpy().tolist() == [[0, 1], [0, 0]]
