"""tp.jit on the jax backend with optimizers: hyperparameters changed between compiled steps,
optimizers' configuration keying the compiled step, and per-step hyperparameters computed on
the device (or on the host, for optimizers that only have ``_hyper``)."""

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
def test_a_custom_optimizers_configuration_keys_the_compiled_step_too(attribute):
    """An optimizer written outside the core (its configuration only in get_config) gets the
    same guarantee: a changed setting compiles again. Between steady compiled calls the
    optimizer hands over the last call's outputs unchecked, until any attribute of its own is
    set: a private one counts too."""
    from tensorplug.optimizers.optimizer import Optimizer

    class Scaled(Optimizer):
        def __init__(self, learning_rate: float) -> None:
            super().__init__(learning_rate)
            setattr(self, attribute, 1.0)

        def _update(self, param, grad, slots, scalars):
            return param - grad * scalars["lr"] * getattr(self, attribute), slots

        def get_config(self):
            return {"learning_rate": self.learning_rate, "scale": getattr(self, attribute)}

    def change(opt):
        setattr(opt, attribute, 0.0)  # from here on, no update at all

    # (changed once the compiled calls are steady)
    _, w_eager = train_changing(Scaled(0.1), change, at=4, jit=False)
    _, w_jit = train_changing(Scaled(0.1), change, at=4, jit=True)
    np.testing.assert_allclose(w_jit.numpy(), w_eager.numpy(), rtol=1e-6)


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


def test_a_call_after_a_call_takes_the_optimizer_state_as_the_last_call_left_it(monkeypatch):
    """The steady state of a training loop: nothing about the optimizer is recomputed (its
    configuration included) while nothing about it changed; a change is seen at once."""
    x, y = (t.numpy() for t in problem())
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    opt = Adam(0.05)
    step = tp.jit(lambda x, y: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w]))
    batches = [(x, y), (x[:3], y[:3])]  # two argument keys in turn (an epoch's short last batch)
    for _ in range(3):
        for batch in batches:
            step(*batch)
    configs = []
    original = Adam._compiled_config
    monkeypatch.setattr(Adam, "_compiled_config", lambda self: configs.append(1) or original(self))
    for _ in range(3):
        for batch in batches:
            step(*batch)
    assert configs == [] and opt.iterations == 12
    opt.learning_rate = 0.01
    for batch in batches:
        step(*batch)
    assert configs == [1] and opt.iterations == 14


# -- optimizer hyperparameters inside a compiled step ---------------------------------------------
class _HostOnly(Adam):
    """An Adam variant written before ``_traced_hyper`` existed: its own ``_hyper`` only."""

    def _hyper(self, step):
        hyper = super()._hyper(step)
        return {**hyper, "step_size": hyper["step_size"] * 0.5}


def test_which_optimizers_compute_their_hyperparameters_on_the_device():
    from tensorplug.optimizers.optimizer import Optimizer

    class Both(Optimizer):
        def _hyper(self, step):
            return {"lr": self.current_learning_rate(step) / step}

        def _traced_hyper(self, step, lr):
            return {"lr": lr / step}

    assert Adam._device_hyper and SGD._device_hyper and Both._device_hyper
    assert not _HostOnly._device_hyper  # its _hyper is newer than the _traced_hyper it inherits


@pytest.mark.parametrize("make_opt", [lambda: _HostOnly(0.05), lambda: Adam(lambda step: 0.05 / step)],
                         ids=["host-only-hyper", "adam-schedule"])
def test_optimizers_whose_hyperparameters_come_from_the_host_match_eager_steps(make_opt):
    losses_eager, w_eager, _, _ = train(make_opt, jit=False)
    losses_jit, w_jit, _, opt = train(make_opt, jit=True)
    np.testing.assert_allclose(losses_jit, losses_eager, rtol=2e-5)
    # (eager steps use the fused update kernel: float32 rounding differs near zero)
    np.testing.assert_allclose(w_jit.numpy(), w_eager.numpy(), rtol=2e-5, atol=1e-6)
    assert opt.iterations == 6


def test_a_compiled_step_with_a_constant_learning_rate_uploads_nothing_per_call():
    """The slots, the step count and the learning rate stay on the device between calls: the
    state a call passes in is made of the previous call's outputs (no host array)."""
    x, y = problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    opt = Adam(0.05)
    step = tp.jit(lambda: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w]))
    for _ in range(3):
        step()
    backend = tp.extend.start_backend("jax")
    token, leaves = opt._jit_state(1, backend)
    assert leaves and all(isinstance(leaf, jax.Array) and concrete(tp.extend.wrap(leaf, backend))
                          for leaf in leaves)
    assert leaves[-2] is opt._jit_natives[3][-1] and float(leaves[-2]) == opt.iterations == 3


def test_a_compiled_step_passes_the_slots_packed_one_buffer_per_dtype():
    """A compiled call's host cost grows with the number of arrays passed in and out, so the
    optimizer passes its slots as one flat buffer per dtype, not one array per slot; cut out
    again when read, they match eager steps' (shapes, dtypes, values), over two argument keys."""
    x, y = (t.numpy() for t in problem())

    def run(jit: bool):
        w = tp.Variable(np.full((3, 2), 0.1, np.float32))
        b = tp.Variable(np.zeros(2, np.float32))
        s = tp.Variable(np.float64(0.5))  # a float64 scalar: a buffer of its own
        opt = Adam(0.05)

        def step(x, y):
            return opt.minimize(lambda: tp.mean((x @ w + b - y) ** 2 * tp.astype(s, "float32")), [w, b, s])

        run_step = tp.jit(step) if jit else step
        for batch in [(x, y), (x[:3], y[:3])] * 3:  # two keys: the second traced with packed slots
            run_step(*(tp.asarray(a) for a in batch) if not jit else batch)
        return opt, (w, b, s)

    opt_jit, vs_jit = run(True)
    opt_eager, vs_eager = run(False)
    backend = tp.extend.start_backend("jax")
    _, leaves = opt_jit._jit_state(1, backend)
    # 2 slots x 3 variables: two buffers (float32, float64), then the step count and learning rate
    assert [(leaf.dtype, leaf.shape) for leaf in leaves[:-2]] == [(np.float32, (2 * (6 + 2),)),
                                                                  (np.float64, (2,))]
    assert len(leaves) == 4
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
    """The trace that finds the optimizer leaves it the (zero) slots its first step creates,
    packed as the step leaves them: the first compiled version is the steady one. Traced twice
    (once to find the state, a trace that is not compiled), so compiled once; the losses as
    eager steps'."""
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
