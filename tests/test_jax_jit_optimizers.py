"""tp.jit on the jax backend with optimizers: the optimizer's state tree carried in and out of a
compiled step like a Variable's value (the same tree as eager steps leave), hyperparameters
changed between compiled steps, settings keying the compiled step, per-step values computed
inside the compiled step, and the state's tensors packed into few arrays per call."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import tensorplug as tp
from _jit_helpers import concrete, problem, train, train_changing
from tensorplug.optimizers import SGD, Adam


@pytest.fixture(autouse=True)
def on_jax():
    return tp.set_backend("jax")


@pytest.mark.parametrize("change", [
    lambda opt: setattr(opt, "learning_rate", 0.01),
    lambda opt: setattr(opt, "beta1", 0.5),
    lambda opt: setattr(opt, "beta2", 0.9),
    lambda opt: setattr(opt, "epsilon", 1e-3),
    # the step count lives on the device between compiled calls; set by hand (a checkpoint
    # restored), Adam's bias correction restarts from there, as eagerly
    lambda opt: setattr(opt, "iterations", 1000),
], ids=["learning_rate", "beta1", "beta2", "epsilon", "iterations"])
def test_changing_a_hyperparameter_between_compiled_steps_is_honoured(change):
    """A compiled step sees the optimizer's hyperparameters as they are at each call (a changed
    constant compiles again), never the values it was first traced with."""
    eager, w_eager = train_changing(Adam(0.05), change, at=3, jit=False)
    compiled, w_jit = train_changing(Adam(0.05), change, at=3, jit=True)
    np.testing.assert_allclose(compiled, eager, rtol=2e-5)
    np.testing.assert_allclose(w_jit.numpy(), w_eager.numpy(), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("attribute", ["scale", "_scale"], ids=["public", "private"])
def test_a_custom_optimizers_settings_key_the_compiled_step_too(attribute):
    """An optimizer written outside the core gets the same guarantee when it declares its
    settings as Hyperparameters (kept in its state): a changed setting compiles again, also
    once the compiled calls are steady, whatever the attribute's name."""
    from tensorplug.optimizers import Hyperparameter, Optimizer

    def __init__(self, learning_rate: float) -> None:
        Optimizer.__init__(self, learning_rate, **{attribute: 1.0})

    def _update(self, param, grad, slots, step):
        lr = step.scalars(param)["learning_rate"]
        return param - grad * lr * step.hyperparameters[attribute], dict(slots)

    Scaled = type("Scaled", (Optimizer,),
                  {attribute: Hyperparameter(), "__init__": __init__, "_update": _update})

    def change(opt):
        setattr(opt, attribute, 0.0)  # from here on, no update at all

    # (changed once the compiled calls are steady)
    _, w_eager = train_changing(Scaled(0.1), change, at=4, jit=False)
    _, w_jit = train_changing(Scaled(0.1), change, at=4, jit=True)
    np.testing.assert_allclose(w_jit.numpy(), w_eager.numpy(), rtol=1e-6)
    assert Scaled(0.1).get_config() == {"learning_rate": 0.1, attribute: 1.0}


def test_reading_the_slots_between_compiled_steps_changes_nothing():
    def run(read: bool):
        x, y = problem()
        w = tp.Variable(np.full((3, 2), 0.1, np.float32))
        opt = Adam(0.05)
        step = tp.jit(lambda: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w]))
        losses = []
        for _ in range(5):
            losses.append(step().item())
            if read:
                assert all(concrete(s) for s in opt.get_slots(w).values())
        return losses, w.numpy(), {k: s.numpy() for k, s in opt.get_slots(w).items()}

    losses_read, w_read, slots_read = run(True)
    losses, w, slots = run(False)
    assert losses_read == losses
    np.testing.assert_array_equal(w_read, w)
    for name in slots:
        np.testing.assert_array_equal(slots_read[name], slots[name])


def test_a_call_after_a_call_takes_the_state_as_the_last_call_left_it(monkeypatch):
    """The steady state of a training loop: tp.jit lays out the state only when some holder's
    state is not what the last call of that argument key left (here: once per key after the
    other key ran, and after the learning rate was set); a change is seen at once."""
    import importlib

    jit_module = importlib.import_module("tensorplug.transforms.jit.api")
    x, y = (t.numpy() for t in problem())
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    opt = Adam(0.05)
    step = tp.jit(lambda x, y: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w]))
    batches = [(x, y), (x[:3], y[:3])]  # two argument keys in turn (an epoch's short last batch)
    for batch in batches * 3:
        step(*batch)
    laid_out = []
    original = jit_module.carry_in
    monkeypatch.setattr(jit_module, "carry_in", lambda *a: laid_out.append(1) or original(*a))
    for _ in range(3):
        step(*batches[0])
    assert laid_out == [1] and opt.iterations == 9  # (the other key ran last)
    opt.learning_rate = 0.01
    losses = [step(*batches[0]).item() for _ in range(2)]
    assert laid_out == [1, 1] and opt.iterations == 11
    w_eager = tp.Variable(w.numpy())
    opt_eager = Adam(0.01)
    opt_eager.state = opt.state  # the same state, stepped eagerly: the same loss
    loss = opt_eager.minimize(lambda: tp.mean((tp.asarray(x) @ w_eager - tp.asarray(y)) ** 2), [w_eager])
    assert step(*batches[0]).item() == pytest.approx(loss.item(), rel=1e-5)
    assert losses[1] < losses[0]


# -- per-step values inside a compiled step -------------------------------------------------------
class _HalfStep(Adam):
    """An Adam variant with its own per-step values (``_scalars``)."""

    def _scalars(self, step, learning_rate, hyperparameters):
        values = super()._scalars(step, learning_rate, hyperparameters)
        return {**values, "step_size": values["step_size"] * 0.5}


@pytest.mark.parametrize("make_opt", [lambda: _HalfStep(0.05), lambda: Adam(lambda step: 0.05 / step)],
                         ids=["own-per-step-values", "adam-schedule"])
def test_per_step_values_computed_in_the_compiled_step_match_eager_steps(make_opt):
    """A subclass's ``_scalars`` and a learning-rate schedule are computed from the step count
    inside the compiled step (eager steps compute them on the host, for the fused kernel)."""
    losses_eager, w_eager, _, _ = train(make_opt, jit=False)
    losses_jit, w_jit, _, opt = train(make_opt, jit=True)
    np.testing.assert_allclose(losses_jit, losses_eager, rtol=2e-5)
    # (eager steps use the fused update kernel: float32 rounding differs near zero)
    np.testing.assert_allclose(w_jit.numpy(), w_eager.numpy(), rtol=2e-5, atol=1e-6)
    assert opt.iterations == 6


def test_a_schedule_is_called_with_the_step_number_as_a_float64_tensor():
    seen = []

    def schedule(step):
        seen.append((step.dtype, step.shape))
        return 0.1 / step

    w = tp.Variable(np.ones(2, np.float32))
    opt = SGD(schedule)
    opt.apply_gradients([(w, tp.ones(2))])
    tp.jit(lambda: opt.apply_gradients([(w, tp.ones(2))]))()
    assert set(seen) == {(tp.float64, ())}
    np.testing.assert_allclose(w.numpy(), 1.0 - 0.1 - 0.05, rtol=1e-6)
    assert opt.current_learning_rate() == pytest.approx(0.1 / 3)


def test_a_compiled_step_with_a_constant_learning_rate_uploads_nothing_per_call():
    """The slots, the step count and the learning rate stay on the device between calls: the
    state the optimizer holds after a call is made of device arrays (no host array), which the
    next call takes as they are."""
    from tensorplug.transforms.jit.state import PackedState

    x, y = problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    opt = Adam(0.05)
    step = tp.jit(lambda: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w]))
    for _ in range(3):
        step()
    left = opt.jit_state()
    assert isinstance(left, PackedState) and left.backend is tp.extend.start_backend("jax")
    assert all(isinstance(a, jax.Array) and concrete(tp.extend.wrap(a, left.backend)) for a in left.natives)
    assert opt.iterations == 3


def test_a_compiled_step_passes_the_state_packed_one_buffer_per_dtype():
    """A compiled call's host cost grows with the number of arrays passed in and out, so the
    optimizer's state tensors go as one flat buffer per dtype, not one array per slot; cut out
    again when read, they match eager steps' (shapes, dtypes, values), over two argument keys."""
    from tensorplug.transforms.jit.state import PackedState

    x, y = (t.numpy() for t in problem())

    def run(jit: bool):
        w = tp.Variable(np.full((3, 2), 0.1, np.float32))
        b = tp.Variable(np.zeros(2, np.float32))
        s = tp.Variable(np.float64(0.5))  # a float64 scalar: its slots join the learning rate
        opt = Adam(0.05)

        def step(x, y):
            return opt.minimize(lambda: tp.mean((x @ w + b - y) ** 2 * tp.astype(s, "float32")), [w, b, s])

        run_step = tp.jit(step) if jit else step
        for batch in [(x, y), (x[:3], y[:3])] * 3:  # two keys: the second traced with packed slots
            run_step(*(tp.asarray(a) for a in batch) if not jit else batch)
        return opt, (w, b, s)

    opt_jit, vs_jit = run(True)
    opt_eager, vs_eager = run(False)
    left = opt_jit.jit_state()
    assert isinstance(left, PackedState)
    # the step count; the learning rate and s's two slots; 2 slots x (6 + 2) for w and b
    assert [(a.dtype, a.shape) for a in left.natives] == [(np.int64, ()), (np.float64, (3,)),
                                                           (np.float32, (2 * (6 + 2),))]
    for v_jit, v_eager in zip(vs_jit, vs_eager):
        np.testing.assert_allclose(v_jit.numpy(), v_eager.numpy(), rtol=2e-5, atol=1e-6)
        slots_jit, slots_eager = opt_jit.get_slots(v_jit), opt_eager.get_slots(v_eager)
        assert set(slots_jit) == {"m", "v"}
        for name, t in slots_jit.items():
            assert concrete(t) and t.shape == v_jit.shape and t.dtype == v_jit.dtype
            np.testing.assert_allclose(t.numpy(), slots_eager[name].numpy(), rtol=2e-5, atol=1e-7)


@pytest.mark.parametrize("make_opt", [lambda: Adam(0.05), lambda: SGD(0.1), lambda: SGD(0.1, momentum=0.9)],
                         ids=["adam", "sgd", "sgd-momentum"])
def test_a_training_step_compiles_once_though_its_first_step_creates_the_slots(make_opt):
    """The optimizer makes a variable's (zero) slots before its first step reads the state
    (initialization, not part of the step): the trace that finds the optimizer leaves them, and
    the first compiled version is the steady one. Traced twice (once to find the state, a trace
    that is not compiled), so compiled once; the losses as eager steps'."""
    traces = []
    x, y = problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    opt = make_opt()

    def step():
        traces.append(1)
        return opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w])

    compiled = tp.jit(step)
    losses = [compiled().item() for _ in range(4)]
    assert len(traces) == 2
    eager_losses, _ = train_changing(make_opt(), lambda opt: None, at=0, jit=False, steps=4)
    np.testing.assert_allclose(losses, eager_losses, rtol=2e-5)


# -- the state tree ------------------------------------------------------------------------------
def _halving(step):
    return 0.5 / step


_DYADIC_GRADS = [np.array([[1.0, -0.5], [2.0, 0.25], [-1.0, 0.5]], np.float32) * k for k in (1, -2, 0.5, 4)]


@pytest.mark.parametrize("make_opt", [
    lambda: SGD(0.5, momentum=0.5, nesterov=True),
    lambda: Adam(0.25, beta1=0.5, beta2=0.75),
    lambda: Adam(_halving, beta1=0.5, beta2=0.75),
], ids=["sgd-nesterov", "adam", "adam-schedule"])
def test_the_state_tree_after_compiled_steps_is_the_one_after_eager_steps(make_opt):
    """The optimizer's state after compiled steps has the structure of the one eager steps leave
    and the same values, bit for bit. (Values chosen exactly representable, so that every
    product is exact: XLA's CPU compiler fuses ``a * b + c`` into one FMA, rounded once, which
    eager steps round twice; otherwise the two agree to rounding, as the tests above check.)"""
    from tensorplug.transforms.jit.state import flatten

    def run(jit: bool):
        params = {"w": tp.full((3, 2), 0.25), "b": tp.zeros((2,))}
        opt = make_opt()
        step = tp.jit(opt.update) if jit else opt.update
        for g in _DYADIC_GRADS:
            params = step(params, {"w": tp.asarray(g), "b": tp.asarray(g[0])})
        return params, opt

    (p_eager, eager), (p_jit, compiled) = run(False), run(True)
    structure_eager, leaves_eager = flatten(eager.state)
    structure_jit, leaves_jit = flatten(compiled.state)
    assert structure_jit == structure_eager  # step count, hyperparameters, slots per leaf
    assert eager.state.iterations.dtype == tp.int64 and int(compiled.state.iterations) == 4
    for t_eager, t_jit in zip(leaves_eager, leaves_jit):
        assert concrete(t_jit) and t_jit.backend == "jax"
        np.testing.assert_array_equal(t_jit.numpy(), t_eager.numpy())
    for name in ("w", "b"):
        np.testing.assert_array_equal(p_jit[name].numpy(), p_eager[name].numpy())


def test_a_new_learning_rate_between_compiled_calls_takes_effect_without_compiling_again():
    """The learning rate is a tensor of the state: a new value is a new input of the compiled
    step. A new setting (a Python value of the state, compiled in) compiles again."""
    traces = []
    x, y = problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    opt = Adam(0.05)

    def step():
        traces.append(1)
        return opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w])

    compiled = tp.jit(step)
    for _ in range(3):
        compiled()
    before = w.numpy()
    opt.learning_rate = 1e-9
    compiled()
    np.testing.assert_allclose(w.numpy(), before, atol=1e-7)  # (a step of ~1e-9)
    assert len(traces) == 2 and opt.learning_rate == 1e-9
    opt.beta1 = 0.5
    compiled()
    assert len(traces) == 3
