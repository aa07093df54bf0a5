"""tp.jit's two forms on both backends: state passed explicitly (optax-style: trees of tensors
in, the new trees out; one trace), and state holders found in one trace (the trace that finds
them is followed by one that takes their state; a function that touches other state then is
refused, not traced a third time)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.tree_util import tree_map

BACKENDS = ["numpy", "jax"]


def _loss(params, x, y):
    return tp.mean((x @ params["w"] + params["b"] - y) ** 2)


def _step(params, velocity, x, y):
    """One step of SGD with momentum, written over trees: no state but its arguments."""
    loss, grads = tp.value_and_grad(_loss)(params, x, y)
    velocity = tree_map(lambda v, g: 0.5 * v + g, velocity, grads)
    params = tree_map(lambda p, v: p - 0.1 * v, params, velocity)
    return params, velocity, loss


def _problem():
    x = tp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3) / 4)
    y = tp.asarray(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=np.float32))
    params = {"w": tp.full((3, 2), 0.1), "b": tp.zeros((2,))}
    return x, y, params, tree_map(tp.zeros_like, params)


@pytest.mark.parametrize("backend", BACKENDS)
def test_explicit_state_in_and_out_traces_once_and_steps_as_eager_calls(backend):
    tp.set_backend(backend)
    traces = []

    def counted(params, velocity, x, y):
        traces.append(1)
        return _step(params, velocity, x, y)

    step = tp.jit(counted)
    x, y, params, velocity = _problem()
    eager_params, eager_velocity = params, velocity
    for _ in range(4):
        params, velocity, loss = step(params, velocity, x, y)
        eager_params, eager_velocity, eager_loss = _step(eager_params, eager_velocity, x, y)
        np.testing.assert_allclose(loss.numpy(), eager_loss.numpy(), rtol=1e-5)
    assert len(traces) == 1  # no state to find: one trace, then compiled calls
    assert sorted(params) == ["b", "w"] and params["w"].backend == backend
    for name in ("w", "b"):
        np.testing.assert_allclose(params[name].numpy(), eager_params[name].numpy(), rtol=1e-5)
        np.testing.assert_allclose(velocity[name].numpy(), eager_velocity[name].numpy(), rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_holders_are_found_in_one_trace(backend):
    """Two Variables and an optimizer, closed over: one trace finds all three, one more takes
    their state, and later calls neither trace nor find anything."""
    tp.set_backend(backend)
    traces = []
    x, y, _, _ = _problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    b = tp.Variable(np.zeros(2, np.float32))
    opt = tp.optimizers.SGD(0.1, momentum=0.5)

    @tp.jit
    def step():
        traces.append(1)
        return opt.minimize(lambda: tp.mean((x @ w + b - y) ** 2), [w, b])

    losses = [step().item() for _ in range(4)]
    assert len(traces) == 2 and opt.iterations == 4
    assert losses == sorted(losses, reverse=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_touching_other_state_when_traced_again_is_refused(backend):
    tp.set_backend(backend)
    first, second = tp.Variable(np.float32(1.0)), tp.Variable(np.float32(2.0))
    traces = []

    @tp.jit
    def f(x):
        traces.append(1)
        v = first if len(traces) == 1 else second  # other state on the second trace
        return x * v

    with pytest.raises(tp.StateError, match=r"tp.jit: f touched state \(Variable\) when traced with the "
                                            r"state its first trace found.*no Python branch"):
        f(np.float32(3.0))
    assert len(traces) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_known_before_a_trace_needs_no_trace_to_find_it(backend):
    """A Variable passed as an argument is known before the first trace; so, for a new
    argument shape (a smaller last batch), is the state the function touched for others."""
    tp.set_backend(backend)
    traces = []
    x, y, _, _ = _problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    b = tp.Variable(np.zeros(2, np.float32))
    opt = tp.optimizers.SGD(0.1)

    @tp.jit
    def step(b, x, y):
        traces.append(x.shape)
        return opt.minimize(lambda: tp.mean((x @ w + b - y) ** 2), [w, b])

    step(b, x, y)
    step(b, x, y)
    assert len(traces) == 2  # one trace finds w and opt (b is given), one compiles
    step(b, x[:2], y[:2])
    step(b, x[:2], y[:2])
    assert traces[2:] == [(2, 3)] and opt.iterations == 4
    eager_w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    eager_b = tp.Variable(np.zeros(2, np.float32))
    eager_opt = tp.optimizers.SGD(0.1)
    for n in (4, 4, 2, 2):
        eager_opt.minimize(lambda n=n: tp.mean((x[:n] @ eager_w + eager_b - y[:n]) ** 2), [eager_w, eager_b])
    np.testing.assert_allclose(w.numpy(), eager_w.numpy(), rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), eager_b.numpy(), rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_variable_passed_as_an_argument_is_traced_once(backend):
    tp.set_backend(backend)
    traces = []
    v = tp.Variable(np.float32(1.0))

    @tp.jit
    def bump(v, x):
        traces.append(1)
        v.assign(v + x)
        return v * 2

    assert [bump(v, np.float32(1.0)).item() for _ in range(3)] == [4.0, 6.0, 8.0]
    assert len(traces) == 1 and v.item() == 4.0


def test_an_array_passed_twice_is_two_inputs_of_the_plan():
    """A plan traced on f(x, x) must read each argument from its own place when replayed on
    f(x, y) (the planner knows arrays by identity: it copies the second for the trace)."""
    f = tp.jit(lambda a, b: a * 2.0 - b)
    x, y = tp.asarray([1.0, 2.0]), tp.asarray([10.0, 20.0])
    assert f(x, x).numpy().tolist() == [1.0, 2.0]
    assert f(x, y).numpy().tolist() == [-8.0, -16.0]
