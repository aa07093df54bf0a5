"""The engine's direct calls (``kernel.direct``): used for the declared input dtypes and
attribute values, with the output dtype the function gives; never for other dtypes, other
attributes, attribute names out of the spec's order, or while the backend turns them off; a
direct function that fails falls back to the kernel function, whose failure is explained."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import KernelError, ShapeError
from tensorplug.extend import KernelConfig, register_kernel

pytestmark = pytest.mark.usefixtures("numpy_backend")


@pytest.fixture
def numpy_backend():
    with tp.backend_scope("numpy"):
        yield tp.extend.start_backend("numpy")


def _kernel(calls: list[str], direct: dict | None, attrs: tuple[str, ...] = (),
            dtypes: tuple = (tp.float32,)):
    def kernel(inputs, attrs_, backend):
        calls.append("kernel")
        return np.exp(inputs[0])

    if direct is not None:
        kernel.direct, kernel.direct_attrs, kernel.direct_dtypes = direct, attrs, dtypes
    return kernel


def test_a_direct_function_runs_for_its_dtypes_and_the_kernel_for_others():
    calls: list[str] = []

    def direct_exp(x):
        calls.append("direct")
        return np.exp(x)

    register_kernel(KernelConfig("Exp", "numpy", _kernel(calls, {(): direct_exp})), override=True)
    out = tp.exp(tp.asarray([0.0, 1.0], dtype=tp.float32))
    assert calls == ["direct"] and out.dtype == tp.float32
    np.testing.assert_allclose(out.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    calls.clear()
    out64 = tp.exp(tp.asarray([0.0, 1.0], dtype=tp.float64))  # not a declared dtype
    assert calls == ["kernel"] and out64.dtype == tp.float64


def test_the_output_dtype_is_the_direct_functions_own():
    calls: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _kernel(
        calls, {(): lambda x: np.exp(x).astype(np.float64)})), override=True)
    assert tp.exp(tp.asarray([1.0], dtype=tp.float32)).dtype == tp.float64


def _matmul_with_direct(calls: list[str], attrs: tuple[str, ...] = ("transpose_x", "transpose_y")):
    """A MatMul kernel whose direct function covers the untransposed case; both log their calls."""

    def plain(x, y):
        calls.append("plain")
        return x @ y

    def kernel(inputs, attrs_, backend):
        calls.append("kernel")
        x, y = inputs
        return (x.T if attrs_["transpose_x"] else x) @ (y.T if attrs_["transpose_y"] else y)

    kernel.direct, kernel.direct_attrs, kernel.direct_dtypes = {(False, False): plain}, attrs, (tp.float32,)
    return kernel


def test_direct_functions_are_chosen_by_attribute_values_in_the_specs_order():
    calls: list[str] = []
    kernel = _matmul_with_direct(calls)
    register_kernel(KernelConfig("MatMul", "numpy", kernel), override=True)
    a = tp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert tp.matmul(a, a.T).tolist() == (a.numpy() @ a.numpy().T).tolist()
    assert calls[-1] == "plain"
    # no direct function for transposed attributes: the kernel function
    out = tp.run_kernel("MatMul", [a, a], {"transpose_y": True})
    assert calls[-1] == "kernel" and out.tolist() == (a.numpy() @ a.numpy().T).tolist()

    # the same mapping under attribute names in another order is not used at all
    calls.clear()
    swapped = _matmul_with_direct(calls, ("transpose_y", "transpose_x"))
    register_kernel(KernelConfig("MatMul", "numpy", swapped), override=True)
    tp.matmul(a, a.T)
    assert calls == ["kernel"]


def test_a_backend_can_turn_direct_calls_off(numpy_backend, monkeypatch):
    calls: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _kernel(calls, {(): np.exp})), override=True)
    monkeypatch.setattr(numpy_backend, "direct_kernels", False)
    tp.exp(tp.asarray([1.0], dtype=tp.float32))
    assert calls == ["kernel"]


def test_a_failing_direct_function_falls_back_to_the_kernel_and_its_explanation():
    calls: list[str] = []

    def broken(x):
        raise ValueError("direct path bug")

    register_kernel(KernelConfig("Exp", "numpy", _kernel(calls, {(): broken})), override=True)
    assert tp.exp(tp.asarray([0.0], dtype=tp.float32)).tolist() == [1.0]
    assert calls == ["kernel"]

    def failing_kernel(inputs, attrs, backend):
        raise RuntimeError("kernel bug")

    failing_kernel.direct, failing_kernel.direct_attrs = {(): broken}, ()
    failing_kernel.direct_dtypes = (tp.float32,)
    register_kernel(KernelConfig("Exp", "numpy", failing_kernel), override=True)
    with pytest.raises(KernelError, match="Kernel 'Exp' on backend 'numpy'.*kernel bug"):
        tp.exp(tp.asarray([0.0], dtype=tp.float32))


def test_direct_calls_are_recorded_for_gradients():
    register_kernel(KernelConfig("Exp", "numpy", _kernel([], {(): np.exp})), override=True)
    x = tp.asarray([0.5, 1.0], dtype=tp.float32)
    np.testing.assert_allclose(tp.grad(lambda v: tp.sum(tp.exp(v)))(x).numpy(), np.exp([0.5, 1.0]),
                               rtol=1e-6)


def test_bad_inputs_on_the_direct_path_are_explained_from_the_spec():
    def direct_matmul(x, y):
        return x @ y

    def kernel(inputs, attrs, backend):
        return inputs[0] @ inputs[1]

    kernel.direct, kernel.direct_attrs = {(False, False): direct_matmul}, ("transpose_x", "transpose_y")
    kernel.direct_dtypes = (tp.float32,)
    register_kernel(KernelConfig("MatMul", "numpy", kernel), override=True)
    with pytest.raises(ShapeError, match="MatMul"):
        tp.matmul(tp.ones((2, 3)), tp.ones((2, 3)))


def test_a_caller_for_fixed_attributes_never_uses_their_direct_function_for_others():
    from tensorplug.engine import make_caller
    from tensorplug.extend import get_kernel_spec

    calls: list[str] = []
    register_kernel(KernelConfig("MatMul", "numpy", _matmul_with_direct(calls)), override=True)
    fixed = {"transpose_x": False, "transpose_y": False}
    call = make_caller(get_kernel_spec("MatMul"), fixed)
    a = tp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert call((a, a.T), fixed).tolist() == (a.numpy() @ a.numpy().T).tolist() and calls == ["plain"]
    other = {"transpose_x": False, "transpose_y": True}
    assert call((a, a), other).tolist() == (a.numpy() @ a.numpy().T).tolist() and calls[-1] == "kernel"
