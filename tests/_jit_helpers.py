"""Helpers shared by the tp.jit tests on the jax backend."""

from __future__ import annotations

import jax
import numpy as np

import tensorplug as tp


def concrete(t):
    """Whether tensor `t` holds a value (not a tracer)."""
    return not isinstance(t.native, jax.core.Tracer)


def problem():
    x = tp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3) / 4)
    y = tp.asarray(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=np.float32))
    return x, y


def train(make_opt, jit: bool, steps: int = 6):
    x, y = problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    b = tp.Variable(np.zeros(2, np.float32))
    opt = make_opt()

    def step(x, y):
        return opt.minimize(lambda: tp.mean((x @ w + b - y) ** 2), [w, b])

    run = tp.jit(step) if jit else step
    losses = [run(x, y).item() for _ in range(steps)]
    return losses, w, b, opt


def train_changing(opt, change, at: int, jit: bool, steps: int = 6):
    """Steps of `opt` on problem() with one weight Variable, `change(opt)` before step `at`:
    the losses and the weight."""
    x, y = problem()
    w = tp.Variable(np.full((3, 2), 0.1, np.float32))
    step = lambda: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w])  # noqa: E731
    run_step = tp.jit(step) if jit else step
    losses = []
    for i in range(steps):
        if i == at:
            change(opt)
        losses.append(run_step().item())
    return losses, w
