"""The kernel contract (``KernelConfig`` and its ``DirectCall``, checked at registration) and the
one dispatcher ops call (``tensorplug.extend.Dispatcher``): direct functions for their dtypes
and attribute values, the kernel function otherwise, a failing direct function explained by
the kernel, recording on tapes, rebinding when the registry changes, and a plugin's op
dispatching exactly as a core op does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import KernelError, RegistrationError, ShapeError
from tensorplug.extend import (
    DirectCall,
    Dispatcher,
    GradConfig,
    KernelConfig,
    KernelSpec,
    get_kernel,
    register_gradient,
    register_kernel,
    register_kernel_spec,
)

pytestmark = pytest.mark.usefixtures("numpy_backend")


@pytest.fixture
def numpy_backend():
    with tp.backend_scope("numpy"):
        yield tp.extend.start_backend("numpy")


def _logged_exp(calls: list[str], direct_dtypes=(tp.float32,), direct=None) -> KernelConfig:
    """An Exp kernel whose kernel function and direct function log their calls."""

    def kernel(inputs, attrs, backend):
        calls.append("kernel")
        return np.exp(inputs[0])

    def run(x):
        calls.append("direct")
        return np.exp(x) if direct is None else direct(x)

    return KernelConfig("Exp", "numpy", kernel, direct=DirectCall(direct_dtypes, run))


# -- the contract, checked at registration -------------------------------------------------------
@pytest.mark.parametrize("make, match", [
    (lambda: DirectCall((), np.exp), "dtypes must be tensorplug dtypes"),
    (lambda: DirectCall((np.float32,), np.exp), "dtypes must be tensorplug dtypes"),
    (lambda: DirectCall((tp.float32,)), "exactly one of `function`"),
    (lambda: DirectCall((tp.float32,), np.exp, specialize=lambda a: np.exp), "exactly one of"),
    (lambda: DirectCall((tp.float32,), "exp"), "function must be callable, got str"),
    (lambda: DirectCall((tp.float32,), specialize=3), "specialize must be callable, got int"),
])
def test_a_direct_call_is_checked_when_made(make, match):
    with pytest.raises(RegistrationError, match=match):
        make()


def _identity_kernel(inputs, attrs, backend):
    return inputs[0]


@pytest.mark.parametrize("config, match", [
    (KernelConfig("Exp", "numpy", "not a function"),
     r"KernelConfig for 'Exp' on backend 'numpy': kernel_func must be callable, got str"),
    (KernelConfig("Exp", "numpy", _identity_kernel, setup_func=1), "setup_func must be callable"),
    (KernelConfig("Exp", "numpy", _identity_kernel, direct=np.exp), "direct must be a DirectCall"),
    (KernelConfig("Sum", "numpy", _identity_kernel, direct=DirectCall((tp.float32,), np.sum)),
     r"'Sum' has attributes \['axis', 'keepdims'\].*DirectCall\(dtypes, specialize=fn\)"),
    (KernelConfig("Exp", "numpy", _identity_kernel,
                  direct=DirectCall((tp.float32,), specialize=lambda attrs: np.exp)),
     r"'Exp' has no attributes; give DirectCall\(dtypes, function\)"),
    (KernelConfig("AdamUpdate", "numpy", _identity_kernel,
                  direct=DirectCall((tp.float32,), specialize=lambda a: None)),
     r"direct calls are for kernels of a fixed number of inputs and one output.*Leave direct=None"),
    (KernelConfig("Concat", "numpy", _identity_kernel,
                  direct=DirectCall((tp.float32,), specialize=lambda a: np.concatenate)),
     "variadic inputs"),
])
def test_a_kernel_config_that_does_not_fit_its_spec_is_refused_saying_what_to_fix(config, match):
    tp.extend.load_plugins()
    with pytest.raises(RegistrationError, match=match):
        register_kernel(config, override=True)


def test_function_attributes_of_the_old_contract_are_ignored_with_one_warning():
    """A backend written against the first API (direct functions as attributes of the kernel
    function) keeps working: its kernel functions run, and it is told once what to change."""
    tp.extend.load_plugins()

    def kernel(inputs, attrs, backend):
        return np.exp(inputs[0])

    kernel.direct, kernel.direct_attrs, kernel.direct_dtypes = {(): np.negative}, (), (tp.float32,)
    with pytest.warns(tp.errors.TensorplugPluginWarning, match=r"sets direct, direct_attrs, direct_dtypes.*"
                      r"KernelConfig\(\.\.\., direct=DirectCall"):
        register_kernel(KernelConfig("Exp", "numpy", kernel), override=True)
    assert tp.exp(tp.asarray([0.0])).tolist() == [1.0]  # the kernel function, not np.negative
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once per registrant
        register_kernel(KernelConfig("Log", "numpy", kernel), override=True)


# -- the dispatcher ------------------------------------------------------------------------------
def test_a_direct_function_serves_its_dtypes_and_the_kernel_function_the_others():
    calls: list[str] = []
    register_kernel(_logged_exp(calls), override=True)
    out = tp.exp(tp.asarray([0.0, 1.0], dtype=tp.float32))
    assert calls == ["direct"] and out.dtype is tp.float32
    np.testing.assert_allclose(out.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    calls.clear()
    out64 = tp.exp(tp.asarray([0.0, 1.0], dtype=tp.float64))
    assert calls == ["kernel"] and out64.dtype is tp.float64


def test_the_output_dtype_is_learned_from_the_direct_functions_first_output(monkeypatch):
    tp.extend.load_plugins()
    original = get_kernel("Greater", "numpy")
    register_kernel(KernelConfig("Greater", "numpy", original.kernel_func,
                                 direct=DirectCall((tp.float32,), np.greater)), override=True)
    x = tp.asarray([1.0, 2.0], dtype=tp.float32)
    assert (x > 1.5).dtype is tp.bool  # learned (and held to the spec) from the first output...
    backend = tp.extend.start_backend("numpy")
    monkeypatch.setattr(backend, "dtype_of", None)  # ...and not asked again
    assert (x > 0.5).dtype is tp.bool and (x > 0.5).tolist() == [True, True]


def test_a_direct_function_that_raises_hands_over_to_the_kernel_which_explains():
    calls: list[str] = []

    def refuses(x):
        raise ValueError("not mine")

    register_kernel(_logged_exp(calls, direct=refuses), override=True)
    assert tp.exp(tp.asarray([0.0])).tolist() == [1.0] and calls == ["direct", "kernel"]

    def broken_kernel(inputs, attrs, backend):
        raise RuntimeError("kernel bug")

    register_kernel(KernelConfig("Exp", "numpy", broken_kernel, direct=DirectCall((tp.float32,), refuses)),
                    override=True)
    with pytest.raises(KernelError, match=r"Kernel 'Exp' on backend 'numpy'.*RuntimeError: kernel bug"):
        tp.exp(tp.asarray([0.0]))


def test_direct_calls_are_recorded_so_gradients_flow_through_them():
    calls: list[str] = []
    register_kernel(_logged_exp(calls), override=True)
    x = tp.asarray([0.5, 1.0])
    g = tp.grad(lambda x: tp.sum(tp.exp(x)))(x)
    assert "direct" in calls and "kernel" not in calls
    np.testing.assert_allclose(g.numpy(), np.exp([0.5, 1.0]), rtol=1e-6)


def test_no_direct_calls_while_the_backend_turns_them_off(numpy_backend, monkeypatch):
    calls: list[str] = []
    register_kernel(_logged_exp(calls), override=True)
    monkeypatch.setattr(numpy_backend, "direct_kernels", False)
    tp.exp(tp.asarray([0.0]))
    assert calls == ["kernel"]


def test_specialize_is_asked_once_per_dispatcher_and_attribute_values():
    tp.extend.load_plugins()
    asked: list[tuple[bool, bool]] = []
    original = get_kernel("MatMul", "numpy")

    def specialize(attrs):
        asked.append((attrs["transpose_x"], attrs["transpose_y"]))
        return None if attrs["transpose_x"] else np.matmul  # no direct call for a transposed x

    register_kernel(KernelConfig("MatMul", "numpy", original.kernel_func,
                                 direct=DirectCall((tp.float32,), specialize=specialize)), override=True)
    a = tp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    for _ in range(3):
        np.testing.assert_array_equal(tp.matmul(a, tp.matrix_transpose(a)).numpy(), a.numpy() @ a.numpy().T)
    assert asked == [(False, False)]
    mm = Dispatcher("MatMul")
    for _ in range(2):
        out = mm((a, a), {"transpose_x": True, "transpose_y": False})
    np.testing.assert_array_equal(out.numpy(), a.numpy().T @ a.numpy())
    # a dispatcher asks once for its own attributes (MatMul's defaults), once for others
    assert asked == [(False, False), (False, False), (True, False)]


def test_a_new_registration_takes_effect_on_the_next_call():
    tp.exp(tp.asarray([0.0]))  # bound to the numpy backend's own Exp
    register_kernel(KernelConfig("Exp", "numpy", lambda inputs, attrs, backend: inputs[0] * 0 + 7),
                    override=True)
    assert tp.exp(tp.asarray([0.0])).tolist() == [7.0]
    tp.extend.unregister_kernel("Exp", "numpy")
    assert tp.exp(tp.asarray([0.0])).tolist() == [1.0]


def test_a_dispatcher_without_attributes_for_a_kernel_that_needs_them_says_which():
    with pytest.raises(ShapeError, match=r"kernel 'Cast' needs the attribute 'dtype'"):
        Dispatcher("Cast").unary(tp.ones((2, 2)))


def test_constant_attributes_are_checked_by_the_spec_on_first_use():
    with pytest.raises(ShapeError, match=r"kernel 'Sum' has no attribute\(s\) \['axes'\]"):
        Dispatcher("Sum", {"axes": (0,)}).unary(tp.ones((2,)))
    total = Dispatcher("Sum", {"axis": (0,)})  # keepdims completed from the spec's default
    assert total.unary(tp.ones((3,))).tolist() == 3.0 and total.attrs == {"axis": (0,), "keepdims": False}


def test_an_unknown_kernel_is_named_on_first_use():
    with pytest.raises(tp.errors.KernelSpecNotFoundError, match="No kernel spec named 'Exq'.*'Exp'"):
        Dispatcher("Exq").unary(tp.ones(()))


def test_a_kernel_of_several_outputs_gives_a_tuple():
    adam = Dispatcher("AdamUpdate", {"beta1": 0.5, "beta2": 0.5})
    param, m, v = adam((tp.asarray([1.0]), tp.asarray([2.0]), tp.asarray([0.0]), tp.asarray([0.0]),
                        tp.asarray(1.0), tp.asarray(0.0)))
    assert (m.tolist(), v.tolist()) == ([1.0], [2.0])
    np.testing.assert_allclose(param.numpy(), [1.0 - 1.0 / np.sqrt(2.0)], rtol=1e-6)



def test_adam_updates_step_values_must_be_0d_and_the_error_names_them():
    ones = [tp.ones((2,))] * 4
    with pytest.raises(tp.errors.ShapeError, match=r"AdamUpdate: step_size and epsilon_hat must be 0-d "
                       r"tensors, got shapes \[\(2,\), \(\)\]; pass one value each"):
        tp.run_kernel("AdamUpdate", [*ones, tp.ones((2,)), tp.asarray(0.0)], {"beta1": 0.5, "beta2": 0.5})

# -- an op of a plugin dispatches like a core op ------------------------------------------------
def test_a_plugin_op_runs_its_kernel_directly_and_differentiates():
    tp.extend.load_plugins()
    register_kernel_spec(KernelSpec("Cube", ("x",), lambda infos, attrs: [infos[0]],
                                    input_dtypes={"x": (tp.float32, tp.float64)}))
    calls: list[str] = []

    def direct(x):
        calls.append("direct")
        return x * x * x

    register_kernel(KernelConfig("Cube", "numpy", lambda inputs, attrs, backend: direct(inputs[0]),
                                 direct=DirectCall((tp.float32, tp.float64), direct)))
    register_gradient(GradConfig("Cube", lambda dy, saved, attrs: {"x": lambda: 3.0 * dy * saved[0] ** 2},
                                 inputs_to_save=("x",)))
    cube = Dispatcher("Cube").unary  # what a plugin's op module keeps

    x = tp.asarray([1.0, 2.0])
    assert cube(x).tolist() == [1.0, 8.0] and calls == ["direct"]
    assert tp.grad(lambda x: tp.sum(cube(x)))(x).tolist() == [3.0, 12.0]
