"""The numerical gradient checker itself: it passes right gradients, fails wrong ones (with a
report naming argument, order and worst element), and handles non-scalar outputs, several
arguments, pass-through arguments and higher orders."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import GradConfig, override_gradient
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides


def _exp_grad(scale):
    def grad_func(dy, saved, attrs):
        (y,) = saved
        return {"x": lambda: dy * y * scale}
    return GradConfig("Exp", grad_func, outputs_to_save=("out",))


def test_passes_a_right_gradient():
    check_gradients(tp.exp, np.array([[0.1, -0.4], [1.0, 0.3]]), order=2)


def test_fails_a_wrong_gradient_naming_the_worst_element():
    x = np.array([[0.1, -0.4, 2.0], [1.0, 0.3, -1.0]])
    with override_gradient(_exp_grad(1.5)), pytest.raises(AssertionError) as info:
        check_gradients(lambda x: tp.sum(tp.exp(x)), x)
    message = str(info.value)
    assert "gradient of argument 0 disagrees with finite differences" in message
    assert "worst element: index (0, 2)" in message  # exp is largest at x = 2.0
    assert f"numeric {np.exp(2.0):.10g}" in message
    assert f"analytic {1.5 * np.exp(2.0):.10g}" in message
    assert "6 of 6 element(s) out of tolerance" in message
    assert "arg 0: float64[2, 3]" in message and "output float64[]" in message


def test_names_the_failing_argument():
    def wrong_multiply(dy, saved, attrs):
        x, y = saved
        return {"x": lambda: dy * y, "y": lambda: dy * y}  # y's gradient should be dy * x
    config = GradConfig("Multiply", wrong_multiply, inputs_to_save=("x", "y"))
    with override_gradient(config), pytest.raises(AssertionError, match="of argument 1 disagrees"):
        check_gradients(tp.multiply, np.array([1.0, 2.0]), np.array([3.0, -1.0]))


def test_catches_a_gradient_that_is_right_only_to_first_order():
    # Exp's gradient from a detached output: first derivatives right, second ones not (the
    # TF.js bug #3252 pattern, which saving outputs on the tape avoids)
    def detached(dy, saved, attrs):
        (y,) = saved
        return {"x": lambda: dy * tp.stop_gradient(y)}
    config = GradConfig("Exp", detached, outputs_to_save=("out",))
    x = np.array([0.5, -1.0])
    with override_gradient(config):
        check_gradients(tp.exp, x)
        with pytest.raises(AssertionError, match=r"order-2 gradient \(reverse mode of a random "
                           r"projection of the order-1 gradient\) of argument 0"):
            check_gradients(tp.exp, x, order=2)


def test_non_scalar_output_is_projected():
    check_gradients(lambda x: tp.exp(x) * 2.0, np.array([[0.5, -1.0, 0.2]]))
    with override_gradient(_exp_grad(1.01)), pytest.raises(AssertionError):
        check_gradients(lambda x: tp.exp(x) * 2.0, np.array([[0.5, -1.0, 0.2]]))


def test_argnums_and_pass_through_arguments():
    calls = []

    def f(x, n, y, label):
        calls.append(label)
        return tp.sum(tp.pow(x, n) * y)

    check_gradients(f, np.array([1.5, 0.5]), 3, np.array([2.0, -1.0]), "hello")
    check_gradients(f, np.array([1.5, 0.5]), 3, np.array([2.0, -1.0]), "hello", argnums=2)
    assert set(calls) == {"hello"}


def test_arguments_are_checked_in_float64():
    seen = []

    def f(x):
        seen.append(x.dtype)
        return tp.sum(tp.sin(x))

    check_gradients(f, tp.asarray([0.3, 1.0], dtype=tp.float32))
    assert set(seen) == {tp.float64}


def test_third_order():
    check_gradients(lambda x, y: tp.sum(tp.tanh(x * y)), np.array([0.3, -0.8]), np.array([1.1, 0.4]),
                    order=3)


def test_notes_lower_precision_outputs():
    def f(x):
        return tp.sum(tp.astype(x, tp.float32) * 3.0)
    with override_gradient(_exp_grad(2.0)), pytest.raises(AssertionError, match="not float64"):
        check_gradients(lambda x: f(x) + tp.astype(tp.sum(tp.exp(x)), tp.float32),
                        np.array([0.25, 0.5]))


def test_refuses_bad_calls():
    with pytest.raises(ValueError, match="order"):
        check_gradients(tp.exp, np.array([1.0]), order=0)
    with pytest.raises(ValueError, match="no floating argument"):
        check_gradients(lambda n: tp.exp(n * 1.0), 3)
    with pytest.raises(TypeError, match="must return a Tensor"):
        check_gradients(lambda x: 1.0, np.array([1.0]))
    with pytest.raises(ValueError, match="out of range"):
        check_gradients(tp.exp, np.array([1.0]), argnums=3)
