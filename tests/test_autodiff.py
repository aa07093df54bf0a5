"""The functional autodiff API (grad, value_and_grad, vjp, variable_grads, custom_grad,
stop_gradient) and the tape's rules: what it keeps, what needs a gradient, what is an error."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import (
    GradConfig,
    KernelConfig,
    KernelSpec,
    override_gradient,
    register_gradient,
    register_kernel,
    register_kernel_spec,
)

F64 = tp.float64


def _same(infos, attrs):
    return [infos[0]]


def _as_float(infos, attrs):
    return [tp.extend.TensorInfo(infos[0].shape, tp.float32)]


@pytest.fixture
def no_grad_kernel():
    """'ToyNoGrad': a differentiable spec with a numpy kernel (x + 1) but no gradient."""
    register_kernel_spec(KernelSpec("ToyNoGrad", ("x",), _same))
    register_kernel(KernelConfig("ToyNoGrad", "numpy", lambda i, a, b: i[0] + 1))
    return lambda x: tp.run_kernel("ToyNoGrad", {"x": x})


def _close(t, expected, rel=1e-6):
    np.testing.assert_allclose(np.asarray(t), expected, rtol=rel, atol=1e-12)


# -- grad and value_and_grad -----------------------------------------------------------------
def test_grad_of_simple_functions():
    _close(tp.grad(tp.sin)(tp.asarray(0.5, dtype=F64)), math.cos(0.5))
    x = tp.asarray([1.0, 2.0, 3.0])
    g = tp.grad(lambda x: tp.sum(x * x))(x)
    assert g.dtype is tp.float32 and g.shape == (3,)
    _close(g, [2.0, 4.0, 6.0])
    _close(tp.grad(lambda x: x * x + x)(3.0), 7.0)  # uses of one tensor accumulate
    assert tp.grad(lambda x: x * 2.0)(tp.asarray(1.0, dtype=F64)).dtype is F64


def test_value_and_grad_with_int_and_tuple_argnums():
    def f(x, y):
        return tp.sum(x * y) + tp.sum(y)

    x, y = tp.asarray([1.0, 2.0]), tp.asarray([3.0, 5.0])
    value, gx = tp.value_and_grad(f)(x, y)
    _close(value, 3.0 + 10.0 + 8.0)
    _close(gx, [3.0, 5.0])
    value, (gx, gy) = tp.value_and_grad(f, argnums=(0, 1))(x, y)
    _close(gx, [3.0, 5.0])
    _close(gy, [2.0, 3.0])
    _close(tp.grad(f, argnums=-1)(x, y), [2.0, 3.0])
    (gy_only,) = tp.grad(f, argnums=(1,))(x, y)
    _close(gy_only, [2.0, 3.0])
    with pytest.raises(tp.AutodiffError,
                       match=r"argnums 2 is out of range for a call with 2 positional argument"):
        tp.grad(f, argnums=2)(x, y)


def test_value_and_grad_with_aux_and_keyword_arguments():
    def f(x, scale=1.0):
        y = x * x * scale
        return y, {"y": y}

    (value, aux), g = tp.value_and_grad(f, has_aux=True)(3.0, scale=2.0)
    _close(value, 18.0)
    _close(aux["y"], 18.0)
    _close(g, 12.0)
    g, aux = tp.grad(f, has_aux=True)(3.0, scale=1.0)
    _close(g, 6.0)


def test_gradients_of_pytree_arguments_have_their_structure():
    def loss(params, x):
        h = params["w"] * x + params["b"][0]
        return tp.sum(h * params["b"][1])

    params = {"w": tp.asarray([1.0, 2.0]), "b": [tp.asarray(0.5), tp.asarray(3.0)]}
    x = tp.asarray([10.0, 20.0])
    g = tp.grad(loss)(params, x)
    assert set(g) == {"w", "b"} and isinstance(g["b"], list) and len(g["b"]) == 2
    _close(g["w"], [30.0, 60.0])
    _close(g["b"][0], 6.0)
    _close(g["b"][1], 10.5 + 40.5)
    g_tuple = tp.grad(lambda t: t[0] * t[1])((tp.asarray(2.0), tp.asarray(5.0)))
    assert isinstance(g_tuple, tuple)
    _close(g_tuple[0], 5.0)
    _close(g_tuple[1], 2.0)
    _, (gp, gx) = tp.value_and_grad(loss, argnums=(0, 1))(params, x)
    _close(gp["w"], [30.0, 60.0])
    _close(gx, [3.0, 6.0])


def test_unconnected_inputs_get_zeros():
    g = tp.grad(lambda x, y: x * 2.0, argnums=1)(tp.asarray(1.0), tp.asarray([1.0, 2.0], dtype=F64))
    assert g.shape == (2,) and g.dtype is F64
    _close(g, [0.0, 0.0])
    _close(tp.grad(lambda x: tp.asarray(4.0))(1.0), 0.0)


def test_the_same_tensor_at_two_argnums_gets_separate_gradients():
    x = tp.asarray(3.0)
    ga, gb = tp.grad(lambda a, b: a * b * b, argnums=(0, 1))(x, x)
    _close(ga, 9.0)
    _close(gb, 18.0)


# -- what cannot be differentiated -----------------------------------------------------------
def test_non_scalar_output_without_upstream_is_an_error_not_a_silent_sum():
    with pytest.raises(tp.AutodiffError, match=r"the function returned shape \(2,\); gradients need a "
                       r"scalar \(shape \(\)\) output\. Reduce it .* or use tp\.vjp .* never sums a "
                       r"non-scalar output silently"):
        tp.grad(lambda x: x * 2.0)(tp.asarray([1.0, 2.0]))


def test_non_tensor_and_non_float_outputs_are_errors():
    with pytest.raises(tp.AutodiffError, match=r"the function must return a Tensor, got float"):
        tp.grad(lambda x: 1.0)(2.0)
    with pytest.raises(tp.AutodiffError,
                       match=r"the function returned dtype bool; gradients need a real floating output"):
        tp.grad(lambda x: x > 1.0)(2.0)


def test_grad_with_respect_to_an_integer_argument_is_a_dtype_error():
    with pytest.raises(tp.DTypeError, match=r"cannot differentiate with respect to argument 1: its dtype is "
                       r"int64\. Gradients are defined for real and complex floating inputs"):
        tp.grad(lambda x, n: x * n, argnums=1)(2.0, 3)
    with pytest.raises(tp.DTypeError, match=r"argument 0: its dtype is int32"):
        tp.grad(lambda x: x * 1.5)(tp.asarray([1, 2], dtype=tp.int32))
    with pytest.raises(TypeError, match=r"primal 0: its dtype is int64"):
        tp.vjp(lambda x: x, 3)


def test_integer_inputs_get_no_gradient():
    def f(x, n):
        return tp.sum(x * n.astype(tp.float32))  # n (int) reaches the output through Cast

    _close(tp.grad(f)(tp.asarray([1.0, 2.0]), tp.asarray([3, 4])), [3.0, 4.0])


def test_a_path_through_integers_needs_no_gradient_and_gives_zero():
    """Kernels reached only through integer tensors are not on the differentiation path: they
    need no gradient, and contribute nothing."""
    register_kernel_spec(KernelSpec("ToyIntToFloat", ("x",), _as_float))
    register_kernel(KernelConfig("ToyIntToFloat", "numpy", lambda i, a, b: i[0].astype(np.float32) * 2))

    def f(x):
        rounded = tp.floor(x).astype(tp.int64)
        return x * 3.0 + tp.run_kernel("ToyIntToFloat", {"x": rounded})

    _close(tp.grad(f)(2.5), 3.0)


def test_an_op_off_the_path_needs_no_gradient(no_grad_kernel):
    def f(x):
        no_grad_kernel(x)  # recorded, but its output does not reach the result
        c = no_grad_kernel(tp.asarray(2.0))  # a constant: not even recorded
        return x * c

    _close(tp.grad(f)(5.0), 3.0)
    _close(tp.grad(lambda x: x * tp.stop_gradient(no_grad_kernel(x)))(5.0), 6.0)


def test_an_op_on_the_path_without_gradient_is_a_clear_error(no_grad_kernel):
    message = (r"Cannot differentiate through kernel 'ToyNoGrad': no gradient is registered for it, and it "
               r"lies on the path from the differentiated input to the output\. Register a gradient with "
               r"tensorplug\.extend\.register_gradient\(GradConfig\(\.\.\.\)\), give the computation a "
               r"gradient with tp\.custom_grad, or cut the path with tp\.stop_gradient")
    with pytest.raises(tp.GradientNotFoundError, match=message):
        tp.grad(lambda x: no_grad_kernel(x) * 2.0)(1.0)
    assert isinstance(tp.GradientNotFoundError(), LookupError)


def test_an_op_on_the_path_whose_spec_is_not_differentiable():
    register_kernel_spec(KernelSpec("ToyStep", ("x",), _same, differentiable=False))
    register_kernel(KernelConfig("ToyStep", "numpy", lambda i, a, b: (i[0] > 0).astype(i[0].dtype)))
    with pytest.raises(tp.GradientNotFoundError, match=r"kernel 'ToyStep': its kernel spec says it is not "
                       r"differentiable, and it lies on the path"):
        tp.grad(lambda x: tp.run_kernel("ToyStep", {"x": x}))(1.0)


# -- misbehaving gradients -------------------------------------------------------------------
def test_a_gradient_of_the_wrong_shape_names_the_kernel():
    bad = GradConfig("Exp", lambda dy, saved, attrs: {"x": lambda: tp.broadcast_to(dy, (2,))})
    message = (r"the gradient of kernel 'Exp' returned shape \(2,\) for an input of shape \(\); a gradient "
               r"must match its input's shape \(reduce broadcast axes with tensorplug\.extend\.unbroadcast\)")
    with override_gradient(bad), pytest.raises(tp.AutodiffError, match=message):
        tp.grad(tp.exp)(1.0)


@pytest.mark.parametrize("grad_func, message", [
    (lambda dy, saved, attrs: [dy],
     r"the gradient of kernel 'Exp' returned a list; a gradient returns a dict"),
    (lambda dy, saved, attrs: {},
     r"the gradient of kernel 'Exp' gives no gradient for its input 'x', which is on the "
     r"differentiation path"),
    (lambda dy, saved, attrs: {"y": lambda: dy},
     r"the gradient of kernel 'Exp' returned gradients for \['y'\], which are not its inputs; "
     r"its inputs are \['x'\]"),
    (lambda dy, saved, attrs: {"x": lambda: 1.0},
     r"the gradient of kernel 'Exp' returned a float, not a Tensor"),
])
def test_malformed_gradients_are_clear_errors(grad_func, message):
    with override_gradient(GradConfig("Exp", grad_func)), pytest.raises(tp.AutodiffError, match=message):
        tp.grad(tp.exp)(1.0)


def test_gradients_are_lazy_per_input():
    """A gradient nobody needs is never computed."""
    called = []

    def grad_func(dy, saved, attrs):
        x, y = saved
        return {"x": lambda: called.append("x") or dy * y, "y": lambda: called.append("y") or dy * x}

    with override_gradient(GradConfig("Multiply", grad_func, inputs_to_save=("x", "y"))):
        _close(tp.grad(lambda x, y: x * y)(2.0, 5.0), 5.0)
    assert called == ["x"]


# -- vjp -------------------------------------------------------------------------------------
def test_vjp_of_a_non_scalar_output():
    x = tp.asarray([1.0, 2.0, 3.0])
    out, vjp_fn = tp.vjp(lambda x: x * x, x)
    _close(out, [1.0, 4.0, 9.0])
    (g,) = vjp_fn(tp.asarray([1.0, 10.0, 100.0]))
    _close(g, [2.0, 40.0, 600.0])
    (g_again,) = vjp_fn([1.0, 1.0, 1.0])  # may be called again
    _close(g_again, [2.0, 4.0, 6.0])
    with pytest.raises(tp.AutodiffError, match=r"vjp: the cotangent has shape \(2,\), the output \(3,\)"):
        vjp_fn([1.0, 2.0])


def test_vjp_of_several_primals():
    out, vjp_fn = tp.vjp(lambda a, b: a * b + b, tp.asarray([1.0, 2.0]), tp.asarray([3.0, 4.0]))
    ga, gb = vjp_fn([1.0, 1.0])
    _close(ga, [3.0, 4.0])
    _close(gb, [2.0, 3.0])


# -- variables -------------------------------------------------------------------------------
def test_variable_grads_defaults_to_every_trainable_variable():
    w = tp.Variable([1.0, 2.0], name="toy_w")
    b = tp.Variable(0.5, name="toy_b")
    frozen = tp.Variable(3.0, name="toy_frozen", trainable=False)
    value, grads = tp.variable_grads(lambda: tp.sum(w * frozen) + b)
    _close(value, 9.5)
    assert {"toy_w", "toy_b"} <= set(grads) and "toy_frozen" not in grads
    _close(grads["toy_w"], [3.0, 3.0])
    _close(grads["toy_b"], 1.0)


def test_variable_grads_over_an_explicit_list():
    w = tp.Variable([1.0, 2.0], name="toy_w")
    b = tp.Variable(0.5, name="toy_b")
    value, grads = tp.variable_grads(lambda: tp.sum(w * w) + b, [w])
    assert set(grads) == {"toy_w"}
    _close(grads["toy_w"], [2.0, 4.0])
    with pytest.raises(tp.AutodiffError, match=r"variable_grads takes Variables, got Tensor"):
        tp.variable_grads(lambda: tp.sum(w), [tp.asarray(1.0)])
    with pytest.raises(tp.AutodiffError, match=r"variable_grads: the function returned shape \(2,\)"):
        tp.variable_grads(lambda: w * 2.0, [w])


def test_grad_reads_a_variable_current_value():
    v = tp.Variable(2.0, name="toy_v")
    f = tp.grad(lambda x: x * v)
    _close(f(1.0), 2.0)
    v.assign(5.0)
    _close(f(1.0), 5.0)


# -- custom_grad -----------------------------------------------------------------------------
def test_custom_grad_bypasses_the_registry(no_grad_kernel):
    @tp.custom_grad
    def plus_one(x):
        return no_grad_kernel(x), lambda dy: dy * 100.0

    _close(plus_one(1.0), 2.0)
    _close(tp.grad(plus_one)(1.0), 100.0)
    _close(tp.grad(lambda x: plus_one(x * 2.0) * 3.0)(1.0), 600.0)

    @tp.custom_grad
    def clipped_identity(x):
        return x * 1.0, lambda dy: tp.clip(dy, -1.0, 1.0)

    _close(tp.grad(lambda x: clipped_identity(x) * 50.0)(1.0), 1.0)


def test_custom_grad_with_several_inputs_and_none():
    @tp.custom_grad
    def scaled(x, y):
        return x * y, lambda dy: (dy * y * 10.0, dy * x * 10.0)

    gx, gy = tp.grad(scaled, argnums=(0, 1))(2.0, 3.0)
    _close(gx, 30.0)
    _close(gy, 20.0)

    @tp.custom_grad
    def times_count(x, n):
        return x * n.astype(tp.float32), lambda dy: (dy * n.astype(tp.float32), None)

    _close(tp.grad(times_count)(2.0, tp.asarray(4)), 4.0)  # None for an input without gradient
    with pytest.raises(tp.AutodiffError, match=r"the gradient of kernel 'times_scale' gives no gradient "
                       r"for its input 1, which is on the differentiation path"):
        @tp.custom_grad
        def times_scale(x, s):
            return x * s, lambda dy: (dy * s, None)

        tp.grad(times_scale, argnums=1)(2.0, 3.0)


def test_custom_grad_must_return_value_and_grad_fn():
    @tp.custom_grad
    def bad(x):
        return x * 2.0

    with pytest.raises(tp.AutodiffError,
                       match=r"custom_grad: bad must return \(value, grad_fn\), got Tensor"):
        bad(1.0)

    @tp.custom_grad
    def too_many(x):
        return x * 2.0, lambda dy: (dy, dy)

    with pytest.raises(tp.AutodiffError,
                       match=r"the custom gradient of 'too_many' returned 2 gradient\(s\) for 1 input\(s\)"):
        tp.grad(too_many)(1.0)


def test_custom_grad_written_with_ops_is_differentiable():
    @tp.custom_grad
    def cube(x):
        return x * x * x, lambda dy: dy * 3.0 * x * x

    x = tp.asarray(2.0, dtype=F64)
    _close(tp.grad(cube)(x), 12.0)
    _close(tp.grad(tp.grad(cube))(x), 12.0)
    _close(tp.grad(tp.grad(tp.grad(cube)))(x), 6.0)


def test_custom_grad_closing_over_forward_values_is_differentiable():
    """grad_fn may use values computed in the forward pass (like ``y`` here); its second
    derivative must see that they depend on the input."""
    @tp.custom_grad
    def my_exp(x):
        y = tp.exp(x)
        return y, lambda dy: dy * y

    x = tp.asarray(0.5, dtype=F64)
    _close(tp.grad(my_exp)(x), math.exp(0.5))
    _close(tp.grad(tp.grad(my_exp))(x), math.exp(0.5))


# -- stop_gradient ---------------------------------------------------------------------------
def test_stop_gradient():
    _close(tp.grad(lambda x: x * tp.stop_gradient(x))(3.0), 3.0)
    _close(tp.grad(lambda x: tp.stop_gradient(x * x))(3.0), 0.0)
    s = tp.stop_gradient([1.0, 2.0])
    assert isinstance(s, tp.Tensor) and s.tolist() == [1.0, 2.0]


# -- higher order ----------------------------------------------------------------------------
def test_nested_grad_does_not_confuse_perturbations():
    _close(tp.grad(lambda x: x * tp.grad(lambda y: x * y)(1.0))(2.0), 4.0)
    # the inner function closes over the outer variable and differentiates w.r.t. its own
    _close(tp.grad(lambda x: tp.grad(lambda y: x * y * y)(3.0))(2.0), 6.0)


def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


THIRD_DERIVATIVES = {
    "tanh": lambda x: (1 - math.tanh(x) ** 2) * (6 * math.tanh(x) ** 2 - 2),
    "exp": math.exp,
    "sigmoid": lambda x: _sigmoid(x) * (1 - _sigmoid(x)) * (1 - 6 * _sigmoid(x) + 6 * _sigmoid(x) ** 2),
    "sin": lambda x: -math.cos(x),
    "log": lambda x: 2 / x ** 3,
}


@pytest.mark.parametrize("name", sorted(THIRD_DERIVATIVES))
def test_third_derivatives_equal_the_analytic_ones(name):
    f = getattr(tp, name)
    x = tp.asarray(0.7, dtype=F64)
    _close(tp.grad(tp.grad(tp.grad(f)))(x), THIRD_DERIVATIVES[name](0.7), rel=1e-10)


def test_grad_of_grad_with_a_vector_input():
    x = tp.asarray([0.1, 0.2], dtype=F64)
    hess_diag = tp.grad(lambda x: tp.sum(tp.grad(lambda z: tp.sum(tp.sin(z)))(x)))(x)
    _close(hess_diag, -np.sin([0.1, 0.2]))


def test_a_registered_gradient_is_used_for_higher_order():
    register_kernel_spec(KernelSpec("ToyCube", ("x",), _same))
    register_kernel(KernelConfig("ToyCube", "numpy", lambda i, a, b: i[0] ** 3))
    def cube_grad(dy, saved, attrs):
        return {"x": lambda: dy * 3.0 * saved[0] * saved[0]}

    register_gradient(GradConfig("ToyCube", cube_grad, inputs_to_save=("x",)))
    cube = tp.grad(lambda x: tp.run_kernel("ToyCube", {"x": x}))
    _close(cube(2.0), 12.0)
    _close(tp.grad(cube)(2.0), 12.0)
