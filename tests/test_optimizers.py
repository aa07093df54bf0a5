"""tp.optimizers: SGD (with and without momentum) and Adam against hand-computed numpy updates;
minimize, apply_gradients in both forms, the functional update, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import optimizers

X0 = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]], np.float32)
B0 = np.array([0.3, -0.7], np.float32)


def _grad_sequence(steps: int) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(7)
    return [{"x": rng.standard_normal(X0.shape).astype(np.float32),
             "b": rng.standard_normal(B0.shape).astype(np.float32)} for _ in range(steps)]


def _numpy_sgd(lr: float, momentum: float, nesterov: bool, grads: list[dict[str, np.ndarray]]) -> dict:
    params = {"x": X0.astype(np.float64), "b": B0.astype(np.float64)}
    acc = {k: np.zeros_like(v) for k, v in params.items()}
    for g in grads:
        for k in params:
            if momentum:
                acc[k] = momentum * acc[k] + g[k]
                step = g[k] + momentum * acc[k] if nesterov else acc[k]
            else:
                step = g[k]
            params[k] = params[k] - lr * step
    return params


def _numpy_adam(lr: float, b1: float, b2: float, eps: float, grads: list[dict[str, np.ndarray]]) -> dict:
    params = {"x": X0.astype(np.float64), "b": B0.astype(np.float64)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    for t, g in enumerate(grads, start=1):
        for k in params:
            m[k] = b1 * m[k] + (1 - b1) * g[k]
            v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
            m_hat = m[k] / (1 - b1 ** t)
            v_hat = v[k] / (1 - b2 ** t)
            params[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return params


def _run(opt: optimizers.Optimizer, grads: list[dict[str, np.ndarray]], form: str) -> dict[str, np.ndarray]:
    x, b = tp.Variable(X0), tp.Variable(B0)
    for g in grads:
        if form == "dict":
            opt.apply_gradients({x.name: tp.asarray(g["x"]), b.name: tp.asarray(g["b"])})
        else:
            opt.apply_gradients([(x, tp.asarray(g["x"])), (b, g["b"])])  # numpy grads are accepted
    assert x.dtype == tp.float32 and x.shape == X0.shape
    return {"x": x.numpy(), "b": b.numpy()}


@pytest.mark.parametrize("form", ["dict", "pairs"])
@pytest.mark.parametrize(("momentum", "nesterov"), [(0.0, False), (0.9, False), (0.5, True)])
def test_sgd_matches_numpy(momentum: float, nesterov: bool, form: str) -> None:
    grads = _grad_sequence(5)
    got = _run(optimizers.SGD(0.1, momentum=momentum, nesterov=nesterov), grads, form)
    want = _numpy_sgd(0.1, momentum, nesterov, grads)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("form", ["dict", "pairs"])
@pytest.mark.parametrize(("lr", "b1", "b2", "eps"), [(0.001, 0.9, 0.999, 1e-7), (0.05, 0.8, 0.99, 1e-3)])
def test_adam_matches_numpy(lr: float, b1: float, b2: float, eps: float, form: str) -> None:
    grads = _grad_sequence(6)
    opt = optimizers.Adam(lr, beta1=b1, beta2=b2, epsilon=eps)
    got = _run(opt, grads, form)
    want = _numpy_adam(lr, b1, b2, eps, grads)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
    assert opt.iterations == 6


def test_adam_defaults_are_tfjs() -> None:
    opt = optimizers.Adam()
    assert (opt.learning_rate, opt.beta1, opt.beta2, opt.epsilon) == (0.001, 0.9, 0.999, 1e-7)


def test_slots_live_on_the_variables_backend_with_its_dtype() -> None:
    x = tp.Variable(np.ones(3, np.float64))
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(x, tp.asarray([1.0, 2.0, 3.0]))])  # float32 grad, float64 variable
    slots = opt.get_slots(x)
    assert set(slots) == {"m", "v"}
    for s in slots.values():
        assert s.dtype == tp.float64 and s.backend == x.backend and s.shape == (3,)
    assert x.dtype == tp.float64
    assert optimizers.SGD(0.1).get_slots(x) == {}


def test_slots_and_updates_stay_on_the_variables_backend() -> None:
    from _toy_backend import install_toy_backend

    install_toy_backend("toy_opt")
    tp.set_backend("toy_opt")
    w = tp.Variable([1.0, 2.0])  # lives on toy_opt
    tp.set_backend("numpy")
    opt = optimizers.Adam(0.5)
    opt.apply_gradients([(w, tp.asarray([1.0, -1.0]))])  # gradient on numpy
    assert w.backend == "toy_opt"
    assert {s.backend for s in opt.get_slots(w).values()} == {"toy_opt"}
    assert tp.get_backend() == "numpy"
    np.testing.assert_allclose(w.numpy(), [0.5, 2.5], rtol=1e-5)


def test_minimize_decreases_a_quadratic() -> None:
    target = np.array([1.0, -2.0, 3.0], np.float32)
    w = tp.Variable(np.zeros(3, np.float32))

    def loss() -> tp.Tensor:
        d = w - target
        return tp.sum(d * d)

    for opt in (optimizers.SGD(0.1), optimizers.SGD(0.05, momentum=0.9), optimizers.Adam(0.1)):
        w.assign(np.zeros(3, np.float32))
        first = float(loss())
        values = [float(opt.minimize(loss, [w])) for _ in range(100)]
        assert values[0] == pytest.approx(first)
        assert float(loss()) < 0.01 * first, type(opt).__name__
    assert opt.minimize(loss, [w], return_loss=False) is None


def test_minimize_defaults_to_trainable_variables() -> None:
    w = tp.Variable(5.0)
    frozen = tp.Variable(2.0, trainable=False)
    opt = optimizers.SGD(0.25)
    opt.minimize(lambda: w * w * frozen)
    assert float(w) == pytest.approx(5.0 - 0.25 * 2 * 5.0 * 2.0)
    assert float(frozen) == 2.0


def test_updates_are_not_recorded_on_a_tape() -> None:
    w = tp.Variable(3.0)
    opt = optimizers.Adam(0.1)

    def outer(s: tp.Tensor) -> tp.Tensor:
        opt.apply_gradients([(w, s * 2.0)])  # the update must not depend on s for autodiff
        return s * 1.0

    assert float(tp.grad(outer)(tp.asarray(1.0))) == 1.0
    assert float(w) != 3.0


def test_none_gradient_leaves_the_variable_alone() -> None:
    w = tp.Variable([1.0, 2.0])
    optimizers.SGD(0.5).apply_gradients([(w, None)])
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])


def test_unknown_variable_name_is_a_lookup_error() -> None:
    opt = optimizers.SGD(0.1)
    with pytest.raises(LookupError, match=r"SGD.apply_gradients: .*'no_such_variable'.*no live Variable"):
        opt.apply_gradients({"no_such_variable": tp.asarray(1.0)})
    assert isinstance(optimizers.VariableNotFoundError("x"), tp.TensorplugError)


def test_bad_gradient_inputs() -> None:
    w = tp.Variable([1.0, 2.0])
    opt = optimizers.Adam()
    with pytest.raises(TypeError, match=r"dict \{variable name: gradient\} or \(Variable, gradient\) pairs"):
        opt.apply_gradients([tp.asarray([1.0, 2.0])])
    with pytest.raises(ValueError, match=r"gradient of shape \(3,\) for a parameter of shape \(2,\)"):
        opt.apply_gradients([(w, tp.asarray([1.0, 2.0, 3.0]))])


@pytest.mark.parametrize(("make", "match"), [
    (lambda: optimizers.SGD(0.0), "learning_rate must be > 0"),
    (lambda: optimizers.SGD(0.1, momentum=1.0), r"momentum must be in \[0, 1\)"),
    (lambda: optimizers.SGD(0.1, nesterov=True), "nesterov=True needs a momentum > 0"),
    (lambda: optimizers.Adam(beta1=1.0), r"beta1 must be in \[0, 1\)"),
    (lambda: optimizers.Adam(epsilon=0.0), "epsilon must be > 0"),
])
def test_bad_hyperparameters(make, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_learning_rate_schedule() -> None:
    w = tp.Variable(0.0)
    opt = optimizers.SGD(lambda step: 0.1 * step)
    for _ in range(3):
        opt.apply_gradients([(w, tp.asarray(1.0))])
    assert float(w) == pytest.approx(-(0.1 + 0.2 + 0.3))


def test_functional_update_over_a_pytree() -> None:
    grads = _grad_sequence(4)
    params = {"x": tp.asarray(X0), "b": [tp.asarray(B0)]}
    opt = optimizers.Adam(0.05)
    for g in grads:
        params = opt.update(params, {"x": tp.asarray(g["x"]), "b": [tp.asarray(g["b"])]})
    want = _numpy_adam(0.05, 0.9, 0.999, 1e-7, grads)
    assert isinstance(params["b"], list)
    np.testing.assert_allclose(params["x"].numpy(), want["x"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params["b"][0].numpy(), want["b"], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="different structures"):
        opt.update(params, {"x": tp.asarray(g["x"])})
    with pytest.raises(ValueError, match="changed structure"):
        opt.update([params["x"]], [tp.asarray(g["x"])])


def test_functional_update_with_grad() -> None:
    params = {"w": tp.asarray([0.0, 0.0])}
    target = tp.asarray([1.0, 2.0])
    opt = optimizers.SGD(0.1, momentum=0.5)

    def loss(p: dict) -> tp.Tensor:
        d = p["w"] - target
        return tp.sum(d * d)

    start = float(loss(params))
    for _ in range(50):
        params = opt.update(params, tp.grad(loss)(params))
    assert float(loss(params)) < 1e-3 * start


def test_a_new_variable_with_a_reused_name_gets_fresh_slots() -> None:
    opt = optimizers.SGD(0.1, momentum=0.9)
    w = tp.Variable([1.0, 1.0], name="opt_test_reused")
    opt.apply_gradients([(w, tp.asarray([1.0, 1.0]))])
    del w
    w2 = tp.Variable([1.0, 1.0, 1.0], name="opt_test_reused")
    opt.apply_gradients({"opt_test_reused": tp.asarray([1.0, 1.0, 1.0])})
    np.testing.assert_allclose(w2.numpy(), [0.9, 0.9, 0.9], rtol=1e-6)


def test_repr() -> None:
    assert repr(optimizers.SGD(0.1, momentum=0.9)) == "SGD(learning_rate=0.1, momentum=0.9, nesterov=False)"


# -- the explicit state -----------------------------------------------------------------------------
def test_the_state_is_an_explicit_tree_that_steps_replace() -> None:
    x, b = tp.Variable(X0), tp.Variable(B0)
    opt = optimizers.Adam(0.05)
    before = opt.state
    assert isinstance(before, optimizers.OptimizerState) and before.slots == {}
    assert before.iterations.dtype == tp.int64 and int(before.iterations) == 0
    for g in _grad_sequence(2):
        opt.apply_gradients([(x, tp.asarray(g["x"])), (b, tp.asarray(g["b"]))])
    after = opt.state
    assert int(before.iterations) == 0 and before.slots == {}  # a step makes a new state
    assert int(after.iterations) == 2 == opt.iterations
    assert list(after.slots) == [x.name, b.name]
    assert {k: set(v) for k, v in after.slots.items()} == {x.name: {"m", "v"}, b.name: {"m", "v"}}
    assert after.slots[x.name]["m"] is opt.get_slots(x)["m"]
    lr = after.hyperparameters["learning_rate"]
    assert lr.dtype == tp.float64 and float(lr) == 0.05
    assert {k: v for k, v in after.hyperparameters.items() if k != "learning_rate"} == {
        "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7}


def test_setting_the_state_restores_a_checkpoint() -> None:
    grads = _grad_sequence(6)
    x = tp.Variable(X0)
    opt = optimizers.Adam(0.05)
    for g in grads[:3]:
        opt.apply_gradients([(x, tp.asarray(g["x"]))])
    checkpoint, x_at = opt.state, x.numpy()
    for g in grads[3:]:
        opt.apply_gradients([(x, tp.asarray(g["x"]))])
    x2 = tp.Variable(x_at)
    restored = optimizers.Adam(0.05)
    # (a new Variable has a new name: the checkpoint's slots go under it)
    restored.state = optimizers.OptimizerState(
        checkpoint.iterations, checkpoint.hyperparameters, {x2.name: checkpoint.slots[x.name]})
    for g in grads[3:]:
        restored.apply_gradients([(x2, tp.asarray(g["x"]))])
    np.testing.assert_array_equal(x2.numpy(), x.numpy())
    assert restored.iterations == 6
    with pytest.raises(tp.StateError, match=r"Adam.state takes an OptimizerState, got dict"):
        restored.state = {"iterations": 0}


def test_the_step_count_can_be_set() -> None:
    """Adam's bias correction counts from the step count in the state."""
    grads = _grad_sequence(3)
    x = tp.Variable(X0)
    opt = optimizers.Adam(0.05)
    opt.iterations = 1000  # a checkpoint's count: corrections are ~1 from here
    for g in grads:
        opt.apply_gradients([(x, tp.asarray(g["x"]))])
    assert opt.iterations == 1003
    x_ref = tp.Variable(X0)
    ref = optimizers.Adam(0.05)
    for g in grads:
        ref.apply_gradients([(x_ref, tp.asarray(g["x"]))])
    assert not np.allclose(x.numpy(), x_ref.numpy(), rtol=1e-3)


def test_settings_are_hyperparameters_of_the_state() -> None:
    opt = optimizers.Adam(0.05)
    opt.beta1 = 0.5
    opt.learning_rate = 0.01
    assert opt.state.hyperparameters["beta1"] == 0.5 and opt.beta1 == 0.5
    assert opt.learning_rate == 0.01 and opt.get_config()["learning_rate"] == 0.01
    assert isinstance(optimizers.Adam.beta1, optimizers.Hyperparameter)
    with pytest.raises(tp.HyperparameterError, match="learning_rate must be > 0"):
        opt.learning_rate = -1.0
    plain = optimizers.SGD(0.1)
    fix = r"without momentum.*SGD\(learning_rate, momentum=\.\.\.\)"
    with pytest.raises(tp.HyperparameterError, match=fix):
        plain.momentum = 0.9
    momentum = optimizers.SGD(0.1, momentum=0.9)
    momentum.momentum = 0.5
    assert momentum.get_config() == {"learning_rate": 0.1, "momentum": 0.5, "nesterov": False}
