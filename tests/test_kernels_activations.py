"""The activation kernels (Elu, EluGrad, ReluGrad, Selu, LeakyRelu, Prelu, Relu6, Step, Softplus,
Gelu, GeluGrad, LogSigmoid) and SquaredDifference, Rsqrt, AddN on each backend: values against
jax.nn / jax.lax computed in float64 (and numpy definitions), dtypes kept, stable tails, the
specs' errors; the tp.nn ops over them and dropout; gradients against finite differences (to
the 2nd order, 3rd where smooth) and against jax.grad."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, raises_for, run, sample
from tensorplug.testing import check_gradients


def _jax(fn, *arrays, **kwargs):
    """fn of the arrays in float64 jax (values exact to float64, whatever dtype they came in)."""
    with jax.enable_x64(True):
        return np.asarray(fn(*(jnp.asarray(np.asarray(a, np.float64)) for a in arrays), **kwargs))


def _step(alpha):
    return lambda x: jnp.where(jnp.isnan(x), x, jnp.where(x > 0, 1.0, alpha))


# kernel, attributes, the jax function it must equal, sample range
UNARY = [
    pytest.param("Elu", {}, jax.nn.elu, (-6, 6), id="Elu"),
    pytest.param("Elu", {"alpha": 0.5}, lambda x: jax.nn.elu(x, 0.5), (-6, 6), id="Elu-alpha"),
    pytest.param("Selu", {}, jax.nn.selu, (-6, 6), id="Selu"),
    pytest.param("LeakyRelu", {"alpha": 0.01}, lambda x: jax.nn.leaky_relu(x, 0.01), (-6, 6), id="LeakyRelu"),
    pytest.param("LeakyRelu", {}, lambda x: jax.nn.leaky_relu(x, 0.2), (-6, 6), id="LeakyRelu-tfjs-default"),
    pytest.param("Relu6", {}, jax.nn.relu6, (-3, 9), id="Relu6"),
    pytest.param("Softplus", {}, jax.nn.softplus, (-30, 30), id="Softplus"),
    pytest.param("LogSigmoid", {}, jax.nn.log_sigmoid, (-30, 30), id="LogSigmoid"),
    pytest.param("Gelu", {}, lambda x: jax.nn.gelu(x, approximate=True), (-6, 6), id="Gelu-tanh"),
    pytest.param("Gelu", {"approximate": False}, lambda x: jax.nn.gelu(x, approximate=False), (-9, 6),
                 id="Gelu-erf"),
    pytest.param("Step", {"alpha": 0.3}, _step(0.3), (-3, 3), id="Step"),
    pytest.param("Rsqrt", {}, jax.lax.rsqrt, (0.01, 50), id="Rsqrt"),
]
FLOATS = [tp.float32, tp.float64, tp.bfloat16]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize(("name", "attrs", "ref", "bounds"), UNARY)
def test_unary_values_match_jax(name, attrs, ref, bounds, dtype):
    x = sample((3, 5), dtype, *bounds)
    assert_values(run(name, {"x": x}, attrs), _jax(ref, x), dtype)


@pytest.mark.parametrize(("name", "attrs", "ref", "bounds"), UNARY)
def test_unary_edge_shapes(name, attrs, ref, bounds):
    for x in (np.float64(2.0), np.zeros((0, 3))):  # 0-d and empty
        assert_values(run(name, {"x": x}, attrs), _jax(ref, x), tp.float64)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("name", ["Softplus", "LogSigmoid", "Elu", "Selu", "Gelu"])
def test_tails_are_finite_and_exact(name, dtype):
    x = np.array([-1000.0, -80.0, -20.0, 20.0, 80.0, 1000.0], dtype.numpy)
    got = run(name, {"x": x})
    want = _jax({"Softplus": jax.nn.softplus, "LogSigmoid": jax.nn.log_sigmoid, "Elu": jax.nn.elu,
                 "Selu": jax.nn.selu, "Gelu": jax.nn.gelu}[name], x)
    assert np.all(np.isfinite(got))
    assert_values(got, want, dtype)


def test_softplus_keeps_its_lower_tail_relatively_exact():
    x = np.array([-30.0, -50.0, -700.0])
    np.testing.assert_allclose(run("Softplus", {"x": x}), np.log1p(np.exp(x)), rtol=1e-14)
    np.testing.assert_allclose(run("LogSigmoid", {"x": -x}), -np.log1p(np.exp(x)), rtol=1e-14)


def test_exact_gelu_keeps_its_lower_tail_relatively_exact():
    x = np.array([-30.0, -10.0, -5.0, -2.9, -2.8, -1.0, 0.5, 2.8, 3.0])
    want = _jax(lambda v: jax.nn.gelu(v, approximate=False), x)
    np.testing.assert_allclose(run("Gelu", {"x": x}, {"approximate": False}), want, rtol=1e-12)


def test_step_keeps_nan_and_gives_alpha_at_zero():
    got = run("Step", {"x": np.array([np.nan, -1.0, 0.0, 2.0], np.float32)}, {"alpha": 0.25})
    np.testing.assert_array_equal(got, [np.nan, 0.25, 0.25, 1.0])


@pytest.mark.parametrize("alpha_shape", [(2, 3), (3,), (1, 3), ()], ids=str)
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64], ids=lambda d: d.name)
def test_prelu_broadcasts_alpha(alpha_shape, dtype):
    x, alpha = sample((2, 3), dtype), sample(alpha_shape, dtype, 0, 1, seed=1)
    assert_values(run("Prelu", {"x": x, "alpha": alpha}), np.where(x > 0, x, alpha * x), dtype)


@pytest.mark.parametrize("alpha", [1.0, 0.4])
def test_elu_grad_is_the_vjp_of_elu(alpha):
    x, dy = sample((3, 4), tp.float64, -4, 4), sample((3, 4), tp.float64, seed=1)
    y = run("Elu", {"x": x}, {"alpha": alpha})
    want = _jax(lambda a, d: jax.vjp(lambda v: jax.nn.elu(v, alpha), a)[1](d)[0], x, dy)
    assert_values(run("EluGrad", {"dy": dy, "y": y}, {"alpha": alpha}), want, tp.float64)


@pytest.mark.parametrize("approximate", [True, False])
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64], ids=lambda d: d.name)
def test_gelu_grad_is_the_vjp_of_gelu(approximate, dtype):
    x, dy = sample((3, 4), dtype, -5, 5), sample((3, 4), dtype, seed=1)
    want = _jax(lambda a, d: jax.vjp(lambda v: jax.nn.gelu(v, approximate), a)[1](d)[0], x, dy)
    assert_values(run("GeluGrad", {"dy": dy, "x": x}, {"approximate": approximate}), want, dtype)


@pytest.mark.parametrize("dtype", [tp.float16, tp.float32, tp.float64], ids=lambda d: d.name)
def test_relu_grad_passes_dy_where_x_is_positive_bit_for_bit(dtype):
    x = np.array([-1.0, -0.0, 0.0, 2.0, np.nan, np.inf, -np.inf, 3.0], dtype.numpy)
    dy = np.array([5.0, 5.0, 5.0, -0.0, 5.0, np.nan, 5.0, -7.5], dtype.numpy)
    want = np.where(x > 0, dy, np.zeros((), dtype.numpy))
    got = run("ReluGrad", {"dy": dy, "x": x})
    np.testing.assert_array_equal(got.view(f"u{dtype.numpy.itemsize}"), want.view(f"u{dtype.numpy.itemsize}"))


def test_relus_gradient_is_one_relu_grad_kernel_and_differentiates_again():
    from tensorplug.profiler import count_kernels

    x = tp.asarray(np.array([[-1.5, 0.5], [2.0, -0.25]]))
    with count_kernels() as calls:
        g = tp.grad(lambda v: tp.sum(tp.nn.relu(v) * v))(x)
    kernels = {kernel for kernel, _ in calls.counts}
    assert "ReluGrad" in kernels and "Where" not in kernels
    xn = x.numpy()
    np.testing.assert_array_equal(g.numpy(), np.where(xn > 0, 2 * xn, 0.0))
    h = tp.hessian(lambda v: tp.sum(tp.nn.relu(v) ** 2))(tp.asarray([1.5, -1.0]))
    np.testing.assert_array_equal(h.numpy(), [[2.0, 0.0], [0.0, 0.0]])


def test_a_backend_without_relu_grad_still_differentiates_relu():
    """A backend written before ReluGrad existed: Relu's gradient runs Greater and Where, as it
    did, eagerly, under tp.jit and tp.vmap, to the second order."""
    tp.extend.load_plugins()
    tp.extend.unregister_kernel("ReluGrad", tp.get_backend())
    x = tp.asarray(np.array([[-1.5, 0.5], [2.0, -0.25]]))
    f = lambda v: tp.sum(tp.nn.relu(v) * v)  # noqa: E731
    want = np.where(x.numpy() > 0, 2 * x.numpy(), 0.0)
    for grad in (tp.grad(f), tp.jit(tp.grad(f)), tp.vmap(tp.grad(f))):
        np.testing.assert_array_equal(grad(x).numpy(), want)
    h = tp.hessian(lambda v: tp.sum(tp.nn.relu(v) ** 2))(tp.asarray([1.5, -1.0]))
    np.testing.assert_array_equal(h.numpy(), [[2.0, 0.0], [0.0, 0.0]])


def test_relu_grad_refuses_unequal_shapes_on_the_direct_path():
    dispatcher = tp.extend.Dispatcher("ReluGrad")
    with pytest.raises(tp.ShapeError, match="equal shapes"):  # (numpy would broadcast them)
        dispatcher.binary(tp.ones((3, 1)), tp.ones((1, 3)))


@pytest.mark.parametrize(("xs", "ys"), [((2, 3), (3,)), ((), (2, 1)), ((0, 2), (2,))], ids=str)
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64, tp.int32, tp.complex64], ids=lambda d: d.name)
def test_squared_difference(dtype, xs, ys):
    x, y = sample(xs, dtype), sample(ys, dtype, seed=1)
    d = x.astype(np.complex128 if dtype.is_complex else np.float64) - y
    assert_values(run("SquaredDifference", {"x": x, "y": y}), d * np.conj(d), dtype)


def test_rsqrt_of_complex_and_of_zero():
    z = sample((4,), tp.complex128)
    assert_values(run("Rsqrt", {"x": z}), 1 / np.sqrt(z), tp.complex128)
    assert run("Rsqrt", {"x": np.array([0.0])})[0] == np.inf


@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64, tp.int32, tp.complex64], ids=lambda d: d.name)
def test_add_n(dtype, count):
    xs = [sample((2, 3), dtype, seed=k) for k in range(count)]
    assert_values(run("AddN", {"xs": xs}), np.sum(np.stack(xs), axis=0), dtype)


def test_kernel_errors():
    raises_for("Elu", tp.DTypeError, {"x": np.zeros(3, np.int64)}, None, "float32 or float64", "got int64")
    raises_for("Prelu", tp.ShapeError, {"x": np.zeros((2, 3)), "alpha": np.zeros(2)}, None,
               "does not broadcast to x's shape (2, 3)")
    raises_for("AddN", tp.ShapeError, {"xs": [np.zeros((2, 3)), np.zeros(3)]}, None, "input 1 has (3,)")
    raises_for("GeluGrad", tp.ShapeError, {"dy": np.zeros(3), "x": np.zeros(2)}, None, "equal shapes")
    raises_for("ReluGrad", tp.DTypeError, {"dy": np.zeros(3, np.int32), "x": np.zeros(3, np.int32)}, None,
               "int32")
    raises_for("SquaredDifference", tp.ShapeError, {"x": np.zeros(3), "y": np.zeros(2)}, None,
               "cannot be broadcast")


# -- the ops ---------------------------------------------------------------------------------
OPS = [
    pytest.param(tp.nn.elu, jax.nn.elu, {}, id="elu"),
    pytest.param(tp.nn.elu, jax.nn.elu, {"alpha": 2.0}, id="elu-alpha"),
    pytest.param(tp.nn.selu, jax.nn.selu, {}, id="selu"),
    pytest.param(tp.nn.leaky_relu, jax.nn.leaky_relu, {}, id="leaky_relu"),
    pytest.param(tp.nn.leaky_relu, jax.nn.leaky_relu, {"negative_slope": 0.3}, id="leaky_relu-slope"),
    pytest.param(tp.nn.relu6, jax.nn.relu6, {}, id="relu6"),
    pytest.param(tp.nn.softplus, jax.nn.softplus, {}, id="softplus"),
    pytest.param(tp.nn.gelu, jax.nn.gelu, {}, id="gelu"),
    pytest.param(tp.nn.gelu, jax.nn.gelu, {"approximate": False}, id="gelu-exact"),
    pytest.param(tp.nn.silu, jax.nn.silu, {}, id="silu"),
    pytest.param(tp.nn.swish, jax.nn.swish, {}, id="swish"),
    pytest.param(tp.nn.log_sigmoid, jax.nn.log_sigmoid, {}, id="log_sigmoid"),
    pytest.param(tp.nn.mish, jax.nn.mish, {}, id="mish"),
]


@pytest.mark.parametrize(("op", "ref", "kwargs"), OPS)
def test_ops_match_jax_nn(op, ref, kwargs):
    x = sample((4, 5), tp.float64, -6, 6)
    assert_values(np.asarray(op(x, **kwargs).numpy()), _jax(lambda v: ref(v, **kwargs), x), tp.float64)
    assert op(sample((3,), tp.float32), **kwargs).dtype is tp.float32
    assert op([1, -2], **kwargs).dtype is tp.float32  # integers: the default float


@pytest.mark.parametrize(("op", "ref", "kwargs"), OPS)
def test_ops_have_jax_nn_signatures(op, ref, kwargs):
    ours, theirs = inspect.signature(op).parameters, inspect.signature(ref).parameters
    assert [(p.name, p.default) for p in list(ours.values())[1:]] == \
           [(p.name, p.default) for p in list(theirs.values())[1:]]


def test_step_and_prelu_ops():
    x = np.array([-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(tp.nn.step(x).numpy(), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(tp.nn.step(x, alpha=-1.0).numpy(), [-1.0, -1.0, 1.0])
    np.testing.assert_allclose(tp.nn.prelu(x, 0.5).numpy(), [-1.0, 0.0, 3.0])
    with pytest.raises(tp.ShapeError, match="prelu: alpha of shape \\(2,\\) does not broadcast"):
        tp.nn.prelu(x, np.ones(2))


def test_op_errors():
    with pytest.raises(tp.DTypeError, match="elu takes real numbers, got complex64"):
        tp.nn.elu(np.ones(2, np.complex64))
    with pytest.raises(tp.ShapeError, match="leaky_relu: negative_slope must be a finite number"):
        tp.nn.leaky_relu(np.ones(2), negative_slope=float("nan"))
    with pytest.raises(tp.ArgumentError, match="gelu: approximate must be True or False"):
        tp.nn.gelu(np.ones(2), approximate="no")
    with pytest.raises(tp.ShapeError, match="add_n: inputs must have equal shapes"):
        tp.add_n([np.ones(2), np.ones(3)])
    with pytest.raises(tp.ArgumentError, match="add_n needs at least one tensor"):
        tp.add_n([])
    with pytest.raises(tp.DTypeError, match="squared_difference does not accept bool"):
        tp.squared_difference(np.ones(2, bool), True)


def test_top_level_ops():
    x, y = sample((2, 3), tp.float32), sample((3,), tp.float64, seed=1)
    got = tp.squared_difference(x, y)  # promotes as subtract
    assert got.dtype is tp.float64
    np.testing.assert_allclose(got.numpy(), (x.astype(np.float64) - y) ** 2, rtol=1e-12)
    assert tp.rsqrt(4).dtype is tp.float32 and tp.rsqrt(4).item() == 0.5
    summed = tp.add_n([np.ones(3, np.int32), np.ones(3, np.float32), 2.0 * np.ones(3, np.float32)])
    assert summed.dtype is tp.float32 and summed.numpy().tolist() == [4.0, 4.0, 4.0]


# -- dropout ---------------------------------------------------------------------------------
def test_dropout_scales_kept_values_and_drops_about_rate():
    x = sample((100, 100), tp.float32, 1, 2)
    got = tp.nn.dropout(x, 0.3, seed=7).numpy()
    kept = got != 0
    assert abs(1 - kept.mean() - 0.3) < 0.03
    np.testing.assert_allclose(got[kept], x[kept] / 0.7, rtol=1e-6)
    assert got.dtype == np.float32


def test_dropout_is_deterministic_in_its_seed():
    x = np.ones((50,))
    a, b = tp.nn.dropout(x, 0.5, seed=1).numpy(), tp.nn.dropout(x, 0.5, seed=1).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, tp.nn.dropout(x, 0.5, seed=2).numpy())


def test_dropout_off():
    x = tp.asarray(sample((3,), tp.float32))
    assert tp.nn.dropout(x, 0.5, seed=0, deterministic=True) is x
    assert tp.nn.dropout(x, 0.0, seed=0) is x


def test_dropout_gradient_flows_through_the_mask():
    x, w = sample((20,), tp.float64), sample((20,), tp.float64, seed=3)
    g = tp.grad(lambda v: tp.sum(tp.nn.dropout(v, 0.25, seed=5) * w))(x).numpy()
    mask = tp.nn.dropout(np.ones(20), 0.25, seed=5).numpy() != 0
    np.testing.assert_allclose(g, np.where(mask, w / 0.75, 0.0), rtol=1e-12)


def test_dropout_under_jit_gives_the_eager_mask():
    x = sample((30,), tp.float32, 1, 2)
    eager = tp.nn.dropout(x, 0.5, seed=11).numpy()
    np.testing.assert_array_equal(tp.jit(lambda v: tp.nn.dropout(v, 0.5, seed=11))(x).numpy(), eager)


@pytest.mark.parametrize("rate", [1.0, -0.1, 1.5, float("nan")])
def test_dropout_refuses_a_rate_outside_0_1(rate):
    with pytest.raises(tp.ShapeError, match="dropout: rate must be in \\[0, 1\\)"):
        tp.nn.dropout(np.ones(3), rate, seed=0)


def test_dropout_needs_an_integer_seed():
    with pytest.raises(tp.ArgumentError, match="dropout: seed must be an int"):
        tp.nn.dropout(np.ones(3), 0.5, seed=0.5)


# -- gradients ---------------------------------------------------------------------------------
def _away_from_kinks(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.3, 2.5, size=shape)


GRADIENTS = [  # (op, smooth: checked to the 3rd order)
    pytest.param(tp.nn.elu, True, id="elu"),
    pytest.param(lambda x: tp.nn.elu(x, alpha=0.5), True, id="elu-alpha"),
    pytest.param(tp.nn.selu, True, id="selu"),
    pytest.param(tp.nn.leaky_relu, True, id="leaky_relu"),
    pytest.param(lambda x: tp.nn.relu6(x * 3.0), True, id="relu6"),
    pytest.param(tp.nn.softplus, True, id="softplus"),
    pytest.param(tp.nn.log_sigmoid, True, id="log_sigmoid"),
    pytest.param(tp.nn.gelu, True, id="gelu"),
    pytest.param(lambda x: tp.nn.gelu(x, approximate=False), True, id="gelu-exact"),
    pytest.param(tp.nn.silu, True, id="silu"),
    pytest.param(tp.nn.mish, True, id="mish"),
    pytest.param(tp.nn.step, False, id="step"),
    pytest.param(lambda x: tp.rsqrt(tp.abs(x)), True, id="rsqrt"),
]


@pytest.mark.parametrize(("op", "smooth"), GRADIENTS)
def test_gradients_second_order(op, smooth):
    check_gradients(op, _away_from_kinks((2, 3)), order=2)


@pytest.mark.parametrize(("op", "smooth"), [p for p in GRADIENTS if p.values[1]])
def test_gradients_third_order(op, smooth):
    check_gradients(op, _away_from_kinks((3,), seed=1), order=3)


@pytest.mark.parametrize(("xs", "alphas"), [((2, 3), (3,)), ((2, 3), ()), ((2, 3), (2, 3))], ids=str)
def test_prelu_gradients_for_x_and_alpha(xs, alphas):
    check_gradients(tp.nn.prelu, _away_from_kinks(xs), np.random.default_rng(1).uniform(0.1, 0.9, alphas),
                    order=2)


@pytest.mark.parametrize(("xs", "ys"), [((2, 3), (3,)), ((), (2,)), ((2, 1), (1, 3))], ids=str)
def test_squared_difference_gradients(xs, ys):
    check_gradients(tp.squared_difference, _away_from_kinks(xs), _away_from_kinks(ys, 2), order=3)


def test_add_n_gradients():
    a, b, c = (_away_from_kinks((2, 2), k) for k in range(3))
    check_gradients(lambda x, y, z: tp.add_n([x, y, z]) * x, a, b, c, order=2)


def test_complex_squared_difference_gradient_is_jaxs():
    x, y = sample((3,), tp.complex128), sample((3,), tp.complex128, seed=1)
    dy = sample((3,), tp.complex128, seed=2)
    got = tp.vjp(tp.squared_difference, tp.asarray(x), tp.asarray(y))[1](tp.asarray(dy))
    with jax.enable_x64(True):
        _, pullback = jax.vjp(lambda a, b: (a - b) * jnp.conj(a - b), jnp.asarray(x), jnp.asarray(y))
        want = pullback(jnp.asarray(dy))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-12)


@pytest.mark.parametrize(("op", "ref"), [
    (tp.nn.gelu, jax.nn.gelu), (lambda x: tp.nn.gelu(x, approximate=False), lambda x: jax.nn.gelu(x, False)),
    (tp.nn.elu, jax.nn.elu), (tp.nn.selu, jax.nn.selu), (tp.nn.softplus, jax.nn.softplus),
    (tp.nn.log_sigmoid, jax.nn.log_sigmoid), (tp.nn.mish, jax.nn.mish),
], ids=["gelu", "gelu-exact", "elu", "selu", "softplus", "log_sigmoid", "mish"])
def test_second_derivatives_match_jax(op, ref):
    x = _away_from_kinks((5,), seed=4)
    got = tp.grad(lambda v: tp.sum(tp.grad(lambda u: tp.sum(op(u)))(v)))(x).numpy()
    want = _jax(lambda v: jax.vmap(jax.grad(jax.grad(ref)))(v), x)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_ops_under_jit_give_the_eager_values():
    def f(x, a):
        return (tp.nn.gelu(x, approximate=False) + tp.nn.elu(x, 0.5) + tp.nn.prelu(x, a) + tp.nn.step(x)
                + tp.add_n([x, tp.nn.mish(x)]) + tp.squared_difference(x, a) * tp.rsqrt(a))

    x, a = sample((2, 3), tp.float32), sample((3,), tp.float32, 0.5, 1.0, seed=1)
    np.testing.assert_allclose(tp.jit(f)(x, a).numpy(), f(x, a).numpy(), rtol=1e-6)
    np.testing.assert_allclose(tp.jit(tp.grad(lambda v: tp.sum(f(v, a))))(x).numpy(),
                               tp.grad(lambda v: tp.sum(f(v, a)))(x).numpy(), rtol=1e-5)
