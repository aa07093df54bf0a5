"""The torch backend's kernels of the array families (elementwise, activations, reductions,
creation, manipulation, layout, indexing, structure) where the conformance kit does not look:
their direct calls give what their kernel functions give, what they refuse (sums of uint8,
whose uint64 accumulator torch lacks), and ops, tp.grad and tp.jit running on them as on
numpy. Their values are the kit's check (``--tensorplug-backend torch``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.backends.lifecycle import active_backend
from tensorplug.errors import DTypeError
from tensorplug.extend import run_kernel

torch = pytest.importorskip("torch")
pytest.importorskip("tensorplug_torch")

X = np.array([[1.5, -2.0, 0.0], [3.0, 4.5, -0.5]], np.float32)

#: ops whose kernels offer direct calls, over X's tensor, with the attributes they take
DIRECT_OPS: dict[str, Callable[[tp.Tensor], tp.Tensor]] = {
    "add": lambda x: x + x,
    "exp": tp.exp,
    "relu": tp.nn.relu,
    "relu_grad": tp.grad(lambda x: tp.sum(tp.nn.relu(x))),
    "floor_divide": lambda x: x // tp.asarray(0.5),
    "sum": tp.sum,
    "sum_axis": lambda x: tp.sum(x, axis=1),
    "sum_keepdims": lambda x: tp.sum(x, axis=None, keepdims=True),
    # (the ops give x itself for axis=(): run the kernels; torch reads dim=() as every axis)
    "sum_no_axis": lambda x: run_kernel("Sum", {"x": x}, {"axis": (), "keepdims": False}),
    "sum_int32": lambda x: tp.sum(x.astype(tp.int32)),
    "max": tp.max,
    "min_axes": lambda x: tp.min(x, axis=(0, 1), keepdims=True),
    "max_no_axis": lambda x: run_kernel("Max", {"x": x}, {"axis": (), "keepdims": True}),
    "prod": lambda x: tp.prod(x, axis=(0, 1)),
    "reshape": lambda x: tp.reshape(x, (3, 2)),
    "transpose": tp.matrix_transpose,
    "cast": lambda x: x.astype(tp.int16),
}


@pytest.fixture(autouse=True)
def _on_torch():
    tp.set_backend("torch")


@pytest.mark.parametrize("name", DIRECT_OPS)
def test_direct_calls_give_what_the_kernel_functions_give(name):
    op = DIRECT_OPS[name]
    x = tp.asarray(X)
    direct = op(x)
    backend = active_backend()
    backend.direct_kernels = False
    try:
        plain = op(x)
    finally:
        backend.direct_kernels = True
    with tp.backend_scope("numpy"):
        expected = op(tp.asarray(X))
    for out in (direct, plain):
        assert isinstance(out.native, torch.Tensor) and not out.native.requires_grad
        assert (out.dtype, out.shape) == (expected.dtype, expected.shape)
        np.testing.assert_array_equal(out.numpy(), expected.numpy())


@pytest.mark.parametrize(("op", "message"), [
    (tp.sum, r"Kernel 'Sum' on backend 'torch' serves .*not uint8"),
    (tp.prod, r"Kernel 'Prod' on backend 'torch' serves .*not uint8"),
    # (the running sums' ops cast to the accumulator first)
    (tp.cumulative_sum, r"astype: backend 'torch' cannot hold uint64"),
    (tp.cumulative_prod, r"astype: backend 'torch' cannot hold uint64"),
])
def test_sums_and_products_of_uint8_are_refused_naming_the_dtype(op, message):
    with pytest.raises(DTypeError, match=message):
        op(tp.asarray(np.arange(3, dtype=np.uint8)))


def test_grad_and_jit_on_torch_agree_with_numpy():
    def loss(x: tp.Tensor) -> tp.Tensor:
        y = tp.nn.gelu(x) * tp.exp(-x) + tp.max(x, axis=0)
        return tp.sum(tp.reshape(y, (-1,))[::-2] ** 2)

    grad = tp.grad(loss)
    on_torch = [f(tp.asarray(X)).numpy() for f in (loss, grad, tp.jit(loss), tp.jit(grad))]
    with tp.backend_scope("numpy"):
        on_numpy = [f(tp.asarray(X)).numpy() for f in (loss, grad)]
    for got, want in zip(on_torch, on_numpy + on_numpy):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_negative_steps_and_gathers_read_what_numpy_reads():
    host = np.arange(24).reshape(2, 3, 4)
    x = tp.asarray(host)
    np.testing.assert_array_equal(x[::-1, 2:0:-1, ::-3].numpy(), host[::-1, 2:0:-1, ::-3])
    index = np.array([[3, -1], [0, -4]])
    np.testing.assert_array_equal(tp.take(x, tp.asarray(index), axis=2).numpy(), np.take(host, index, axis=2))


def test_kernels_without_inputs_create_on_the_backends_device():
    for out in (tp.zeros((2,)), tp.arange(3), tp.eye(2, k=1), tp.linspace(0.0, 1.0, 5)):
        assert isinstance(out.native, torch.Tensor) and out.device == "cpu"
    np.testing.assert_array_equal(tp.eye(2, 3, k=1).numpy(), np.eye(2, 3, k=1, dtype=np.float32))


#: (op, input) where torch's own function differs from numpy's and the kit's cases do not look
EDGES: dict[str, tuple[Callable[[tp.Tensor], tp.Tensor], np.ndarray]] = {
    "sign_nan": (tp.sign, np.array([np.nan, -0.0, -3.0], np.float32)),  # torch.sign(nan) is 0
    "sigmoid_tail": (tp.nn.sigmoid, np.array([-100.0, -90.0, 30.0], np.float32)),  # torch: 0 at -100
    "gelu_tail": (lambda x: tp.nn.gelu(x, approximate=False), np.array([-7.0, -9.0], np.float64)),
    "expm1_complex": (tp.expm1, np.array([np.inf + 0j, np.nan + 0j, -np.inf + 1j], np.complex64)),
    "log1p_complex": (tp.log1p, np.array([complex(np.nan, np.inf), complex(np.inf, np.nan)], np.complex64)),
    # torch's complex128 log1p gives nan + nan j for that first value
    "log1p_inf": (tp.log1p, np.array([complex(-1.603972830347491e16, np.inf), complex(-2, -np.inf)])),
    # torch: pi/2 + 0j, the sign of a zero imaginary part not the opposite of x's
    "acos_complex_zero": (tp.acos, np.array([0j, complex(0, -0.0), complex(1, 0), complex(-0.5, -0.0)])),
}


@pytest.mark.parametrize("name", EDGES)
def test_values_where_torchs_own_functions_differ_from_numpy(name):
    op, host = EDGES[name]
    got = op(tp.asarray(host)).numpy()
    with tp.backend_scope("numpy"):
        want = op(tp.asarray(host)).numpy()
    rtol = 1e-12 if host.dtype == np.float64 else 2e-7
    for part in ((np.real, np.imag) if np.iscomplexobj(want) else (np.asarray,)):  # (NaN parts apart)
        np.testing.assert_allclose(part(got), part(want), rtol=rtol, atol=0)
        zeros = part(want) == 0
        np.testing.assert_array_equal(np.signbit(part(got))[zeros], np.signbit(part(want))[zeros])


@pytest.mark.parametrize(("on", "off", "dtype"), [(0.1, -0.3, tp.float64), (1.7, -2.2, tp.int32),
                                                  (1 + 2j, 0.5, tp.complex128), (True, False, tp.bool)])
def test_one_hot_values_are_cast_at_full_width(on, off, dtype):
    """(0.1 went through float32 into a float64 tensor: 0.10000000149)"""
    attrs = {"depth": 3, "on_value": on, "off_value": off, "dtype": dtype}
    got = run_kernel("OneHot", {"indices": tp.asarray(np.array([0, 2, -1]))}, attrs).numpy()
    with tp.backend_scope("numpy"):
        want = run_kernel("OneHot", {"indices": tp.asarray(np.array([0, 2, -1]))}, attrs).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("name", "inputs", "attrs"), [
    ("Cast", lambda: {"x": tp.asarray([1.0])}, {"dtype": tp.uint16}),
    ("Fill", dict, {"shape": (2,), "value": 1, "dtype": tp.uint32}),
    ("Eye", dict, {"n_rows": 2, "n_cols": 2, "dtype": tp.uint64}),
])
def test_kernels_called_past_the_ops_refuse_dtypes_the_backend_does_not_hold(name, inputs, attrs):
    """(the ops refuse them first; the kernels raised KeyError, reported as a bug in the kernel)"""
    with pytest.raises(DTypeError, match=rf"Kernel '{name}' on backend 'torch': the backend holds no "
                                         rf"{attrs['dtype'].name} tensors .* it holds bool, int8"):
        run_kernel(name, inputs(), attrs)
