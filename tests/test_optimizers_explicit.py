"""The optimizers' explicit form (optax's ``init``/``update``): ``state = opt.init(params)``,
``params, state = opt.apply(state, params, grads)``. It steps exactly as the functional
``update`` (which keeps the state in the optimizer) does, keeps nothing itself, and compiles
under ``tp.jit`` with the state as an argument and a result: one trace, no state holder."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import optimizers
from tensorplug.errors import ShapeError, StateError

OPTIMIZERS = {
    "sgd": lambda: optimizers.SGD(0.1),
    "momentum": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: optimizers.Adam(0.05),
    "adamw_clipped": lambda: optimizers.AdamW(0.05, weight_decay=0.1, clip_norm=0.5),
    "adagrad": lambda: optimizers.Adagrad(0.1),
    "adadelta": lambda: optimizers.Adadelta(1.0),
    "adamax": lambda: optimizers.Adamax(0.05),
    "rmsprop": lambda: optimizers.RMSprop(0.01, momentum=0.5),
    "schedule": lambda: optimizers.Adam(optimizers.schedules.exponential_decay(0.1, 2, 0.5)),
}


def _params():
    return {"w": tp.asarray(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)), "b": tp.zeros((3,))}


def _loss(params, x):
    return tp.sum((x @ params["w"] + params["b"]) ** 2)


X = np.array([[1.0, 2.0], [0.5, -1.0]], dtype=np.float32)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_apply_steps_as_update_does_and_the_optimizer_keeps_nothing(name):
    explicit, functional = OPTIMIZERS[name](), OPTIMIZERS[name]()
    x = tp.asarray(X)
    p, q = _params(), _params()
    state = explicit.init(p)
    assert int(state.iterations) == 0 and sorted(state.slots) == [0, 1]
    for _ in range(3):
        p, state = explicit.apply(state, p, tp.grad(_loss)(p, x))
        q = functional.update(q, tp.grad(_loss)(q, x))
    assert int(state.iterations) == 3 and int(explicit.state.iterations) == 0 and not explicit.state.slots
    for leaf in ("w", "b"):
        np.testing.assert_allclose(p[leaf].numpy(), q[leaf].numpy(), rtol=1e-6, atol=1e-7)
    for position, slots in functional.state.slots.items():
        for slot, value in slots.items():
            np.testing.assert_allclose(state.slots[position][slot].numpy(), value.numpy(),
                                       rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_a_jitted_step_takes_the_state_in_and_out_in_one_trace(backend):
    tp.set_backend(backend)
    opt = optimizers.Adam(0.05)
    traces = []

    @tp.jit
    def step(params, state, x):
        traces.append(1)
        loss, grads = tp.value_and_grad(_loss)(params, x)
        params, state = opt.apply(state, params, grads)
        return params, state, loss

    x = tp.asarray(X)
    p, state = _params(), opt.init(_params())
    q, eager = _params(), opt.init(_params())
    for _ in range(4):
        p, state, loss = step(p, state, x)
        eager_loss, grads = tp.value_and_grad(_loss)(q, x)
        q, eager = opt.apply(eager, q, grads)
        np.testing.assert_allclose(loss.numpy(), eager_loss.numpy(), rtol=1e-5)
    assert len(traces) == 1  # the optimizer is no state holder here: nothing to discover
    assert int(state.iterations) == 4 and int(opt.state.iterations) == 0
    np.testing.assert_allclose(p["w"].numpy(), q["w"].numpy(), rtol=1e-5)


def test_apply_refuses_a_state_it_did_not_make():
    opt = optimizers.SGD(0.1, momentum=0.5)
    p = _params()
    grads = tp.grad(_loss)(p, tp.asarray(X))
    with pytest.raises(StateError, match=r"SGD.apply takes the OptimizerState that init or apply "
                                         r"returned, got dict"):
        opt.apply({}, p, grads)
    with pytest.raises(StateError, match=r"SGD.apply: the state has no slots for parameter leaves "
                                         r"\[1\]; make it with init\(params\)"):
        opt.apply(opt.init([p["b"]]), [p["b"], p["w"]], [grads["b"], grads["w"]])
    with pytest.raises(ShapeError, match="SGD.apply: params and grads have different structures"):
        opt.apply(opt.init(p), p, [grads["w"]])
