"""tp.optimizers' AdamW, Adagrad, Adadelta, Adamax, RMSprop and SGD: each optimizer's
trajectory on a small least-squares problem against a numpy re-implementation of the formula
PyTorch documents (written from the formula, not from tensorplug's code), eagerly and under
tp.jit, on the numpy and jax backends; and their settings' errors."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import optimizers

RNG = np.random.default_rng(3)
X = RNG.standard_normal((6, 3))
Y = RNG.standard_normal((6, 2))
W0 = RNG.standard_normal((3, 2)) * 0.5
B0 = RNG.standard_normal(2) * 0.5
STEPS = 5


def loss_grads(w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradients of mean((X @ w + b - Y) ** 2)."""
    r = 2.0 * (X @ w + b - Y) / Y.size
    return X.T @ r, r.sum(axis=0)


# -- the documented formulas, in numpy: one update of one parameter, with its state dict ------
def sgd(lr: float, momentum: float = 0.0, nesterov: bool = False) -> Callable:
    def step(p, g, s, t):  # torch.optim.SGD (dampening 0): b = mu*b + g; nesterov: g + mu*b
        if momentum:
            s["b"] = g if t == 1 else momentum * s["b"] + g
            g = g + momentum * s["b"] if nesterov else s["b"]
        return p - lr * g
    return step


def adamw(lr: float, b1: float, b2: float, eps: float, wd: float) -> Callable:
    def step(p, g, s, t):  # torch.optim.AdamW
        p = p - lr * wd * p
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        m_hat, v_hat = s["m"] / (1 - b1 ** t), s["v"] / (1 - b2 ** t)
        return p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return step


def adagrad(lr: float, init: float, eps: float) -> Callable:
    def step(p, g, s, t):  # torch.optim.Adagrad (lr_decay 0), state_sum starting at init
        s["sum"] = s.get("sum", init) + g * g
        return p - lr * g / (np.sqrt(s["sum"]) + eps)
    return step


def adadelta(lr: float, rho: float, eps: float) -> Callable:
    def step(p, g, s, t):  # torch.optim.Adadelta
        s["v"] = rho * s.get("v", 0) + (1 - rho) * g * g
        dx = np.sqrt(s.get("u", 0) + eps) / np.sqrt(s["v"] + eps) * g
        s["u"] = rho * s.get("u", 0) + (1 - rho) * dx * dx
        return p - lr * dx
    return step


def adamax(lr: float, b1: float, b2: float, eps: float) -> Callable:
    def step(p, g, s, t):  # torch.optim.Adamax
        s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        s["u"] = np.maximum(b2 * s.get("u", 0), np.abs(g) + eps)
        return p - lr * s["m"] / ((1 - b1 ** t) * s["u"])
    return step


def rmsprop(lr: float, alpha: float, eps: float, momentum: float = 0.0, centered: bool = False) -> Callable:
    def step(p, g, s, t):  # torch.optim.RMSprop
        s["v"] = alpha * s.get("v", 0) + (1 - alpha) * g * g
        v = s["v"]
        if centered:
            s["g"] = alpha * s.get("g", 0) + (1 - alpha) * g
            v = v - s["g"] ** 2
        if momentum:
            s["b"] = momentum * s.get("b", 0) + g / (np.sqrt(v) + eps)
            return p - lr * s["b"]
        return p - lr * g / (np.sqrt(v) + eps)
    return step


def reference(rule: Callable, steps: int = STEPS, clip_value: float | None = None,
              clip_norm: float | None = None, lr_at: Callable[[int], float] | None = None) -> list:
    w, b, sw, sb = W0.copy(), B0.copy(), {}, {}
    for t in range(1, steps + 1):
        gw, gb = loss_grads(w, b)
        if clip_value is not None:
            gw, gb = np.clip(gw, -clip_value, clip_value), np.clip(gb, -clip_value, clip_value)
        if clip_norm is not None:
            norm = np.sqrt((gw ** 2).sum() + (gb ** 2).sum())
            gw, gb = gw * min(1.0, clip_norm / norm), gb * min(1.0, clip_norm / norm)
        w, b = rule(w, gw, sw, t), rule(b, gb, sb, t)
    return [w, b]


# (id, tensorplug optimizer, numpy rule)
TABLE: list[tuple[str, Callable[[], optimizers.Optimizer], Callable]] = [
    ("sgd", lambda: optimizers.SGD(0.1), sgd(0.1)),
    ("sgd_momentum", lambda: optimizers.SGD(0.1, momentum=0.9), sgd(0.1, 0.9)),
    ("sgd_nesterov", lambda: optimizers.SGD(0.1, momentum=0.5, nesterov=True), sgd(0.1, 0.5, True)),
    ("adamw", lambda: optimizers.AdamW(0.05, weight_decay=0.1), adamw(0.05, 0.9, 0.999, 1e-7, 0.1)),
    ("adamw_betas", lambda: optimizers.AdamW(0.1, 0.8, 0.95, 1e-3, 0.5), adamw(0.1, 0.8, 0.95, 1e-3, 0.5)),
    ("adagrad", lambda: optimizers.Adagrad(0.1), adagrad(0.1, 0.1, 1e-10)),
    ("adagrad_zero_init", lambda: optimizers.Adagrad(0.1, 0.0, 1e-3), adagrad(0.1, 0.0, 1e-3)),
    ("adadelta", lambda: optimizers.Adadelta(), adadelta(1.0, 0.9, 1e-6)),
    ("adadelta_rho", lambda: optimizers.Adadelta(0.5, rho=0.5, epsilon=1e-3), adadelta(0.5, 0.5, 1e-3)),
    ("adamax", lambda: optimizers.Adamax(0.05), adamax(0.05, 0.9, 0.999, 1e-8)),
    ("adamax_betas", lambda: optimizers.Adamax(0.1, 0.5, 0.9, 1e-2), adamax(0.1, 0.5, 0.9, 1e-2)),
    ("rmsprop", lambda: optimizers.RMSprop(0.01), rmsprop(0.01, 0.99, 1e-8)),
    ("rmsprop_momentum", lambda: optimizers.RMSprop(0.01, momentum=0.9), rmsprop(0.01, 0.99, 1e-8, 0.9)),
    ("rmsprop_centered", lambda: optimizers.RMSprop(0.01, 0.9, centered=True),
     rmsprop(0.01, 0.9, 1e-8, 0.0, True)),
    ("rmsprop_both", lambda: optimizers.RMSprop(0.02, 0.8, 1e-4, 0.5, True),
     rmsprop(0.02, 0.8, 1e-4, 0.5, True)),
]


def train(opt: optimizers.Optimizer, backend: str, jit: bool, steps: int = STEPS) -> list[np.ndarray]:
    tp.set_backend(backend)
    x, y = tp.asarray(X), tp.asarray(Y)
    w, b = tp.Variable(W0), tp.Variable(B0)

    def step() -> Any:
        return opt.minimize(lambda: tp.mean((x @ w + b - y) ** 2), [w, b])

    run = tp.jit(step) if jit else step
    for _ in range(steps):
        run()
    return [w.numpy(), b.numpy()]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize(("make", "rule"), [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_trajectory_matches_the_documented_formula(make, rule, backend: str, jit: bool) -> None:
    got = train(make(), backend, jit)
    for g, w in zip(got, reference(rule)):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_the_functional_update_follows_the_same_formula(backend: str, jit: bool) -> None:
    tp.set_backend(backend)
    x, y = tp.asarray(X), tp.asarray(Y)
    opt = optimizers.RMSprop(0.02, momentum=0.5, centered=True)
    loss = lambda p: tp.mean((x @ p["w"] + p["b"] - y) ** 2)  # noqa: E731
    step = lambda p: opt.update(p, tp.grad(loss)(p))  # noqa: E731
    run = tp.jit(step) if jit else step
    params = {"w": tp.asarray(W0), "b": tp.asarray(B0)}
    for _ in range(STEPS):
        params = run(params)
    want = reference(rmsprop(0.02, 0.99, 1e-8, 0.5, True))
    np.testing.assert_allclose(params["w"].numpy(), want[0], rtol=1e-9)
    np.testing.assert_allclose(params["b"].numpy(), want[1], rtol=1e-9)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_adamw_updates_through_the_fused_adam_kernel_in_compiled_steps_too(backend: str, jit: bool) -> None:
    """The backend's AdamUpdate kernel does each parameter's Adam update (AdamW's too), in a
    tp.jit step as well (the step's values are its 0-d inputs, computed there from the traced
    step count), with the trajectory of the formula."""
    tp.set_backend(backend)  # (started: its kernels registered)
    original = tp.extend.get_kernel("AdamUpdate", backend)
    scalar_shapes: list[tuple] = []

    def watched(inputs: Any, attrs: dict, be: Any) -> Any:
        scalar_shapes.append(tuple(tuple(be.shape_of(a)) for a in inputs[4:]))
        return original.kernel_func(inputs, attrs, be)

    tp.extend.register_kernel(tp.extend.KernelConfig("AdamUpdate", backend, watched), override=True)
    for make, rule in [row[1:] for row in TABLE if row[0].startswith("adamw")]:
        scalar_shapes.clear()
        got = train(make(), backend, jit)
        assert scalar_shapes and set(scalar_shapes) == {((), ())}
        for g, w in zip(got, reference(rule)):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_adamw_without_weight_decay_is_adam() -> None:
    a = train(optimizers.AdamW(0.05, weight_decay=0.0), "numpy", False)
    b = train(optimizers.Adam(0.05), "numpy", False)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-12)


@pytest.mark.parametrize(("make", "defaults"), [
    (optimizers.AdamW, {"learning_rate": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7,
                        "weight_decay": 0.01}),
    (optimizers.Adagrad, {"learning_rate": 0.01, "initial_accumulator_value": 0.1, "epsilon": 1e-10}),
    (optimizers.Adadelta, {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-6}),
    (optimizers.Adamax, {"learning_rate": 0.002, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}),
    (optimizers.RMSprop, {"learning_rate": 0.01, "alpha": 0.99, "epsilon": 1e-8, "momentum": 0.0,
                          "centered": False}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_defaults_are_the_documented_ones(make, defaults: dict) -> None:
    opt = make()
    assert opt.get_config() == defaults
    for name, value in defaults.items():
        assert getattr(opt, name) == value
        stated = re.search(rf"\b{name}=([^,`]+)", make.__doc__ or "")  # the docstring states it
        assert stated and ast.literal_eval(stated.group(1)) == value, name


@pytest.mark.parametrize(("make", "match"), [
    (lambda: optimizers.AdamW(weight_decay=-1.0), "AdamW: weight_decay must be >= 0"),
    (lambda: optimizers.AdamW(beta1=1.0), "Adam: beta1 must be in"),
    (lambda: optimizers.Adagrad(initial_accumulator_value=-0.1), "Adagrad: initial_accumulator_value"),
    (lambda: optimizers.Adagrad(initial_accumulator_value=0.0, epsilon=0.0), "divides by zero"),
    (lambda: optimizers.Adadelta(rho=1.5), r"Adadelta: rho must be in \[0, 1\]"),
    (lambda: optimizers.Adadelta(epsilon=0.0), "Adadelta: epsilon must be > 0"),
    (lambda: optimizers.Adamax(beta2=-0.1), r"Adamax: beta2 must be in \[0, 1\)"),
    (lambda: optimizers.RMSprop(momentum=1.0), r"RMSprop: momentum must be in \[0, 1\)"),
    (lambda: optimizers.RMSprop(alpha=2.0), r"RMSprop: alpha must be in \[0, 1\]"),
    (lambda: optimizers.RMSprop(0.1, clip_norm=0.0), "RMSprop: clip_norm must be a number > 0"),
    (lambda: optimizers.SGD(0.1, clip_value="1"), "SGD: clip_value must be a number > 0"),
])
def test_bad_settings_say_what_is_wrong(make, match: str) -> None:
    with pytest.raises(tp.HyperparameterError, match=match):
        make()


@pytest.mark.parametrize(("name", "slots"), [
    ("adamw", {"m", "v"}), ("adagrad", {"sum_squares"}), ("adadelta", {"square_avg", "acc_delta"}),
    ("adamax", {"m", "u"}), ("rmsprop", {"square_avg"}),
    ("rmsprop_both", {"square_avg", "grad_avg", "momentum_buffer"}),
])
def test_slots_are_named_in_the_state(name: str, slots: set) -> None:
    opt = dict((row[0], row[1]) for row in TABLE)[name]()
    w = tp.Variable(W0)
    opt.apply_gradients([(w, tp.asarray(np.ones_like(W0)))])
    assert set(opt.get_slots(w)) == slots
    assert all(s.shape == W0.shape and s.dtype == tp.float64 for s in opt.get_slots(w).values())
