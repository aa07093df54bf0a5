"""Learning-rate schedules (``tp.optimizers.schedules``): each function returns a schedule, a
pure function of the step number that an optimizer takes as its ``learning_rate``.

An optimizer calls its schedule with the number of the update being made, counting from 1 (a
float64 scalar tensor, traced inside a ``tp.jit`` step), and the schedules below evaluate at
``t = step - 1``, the updates done before it: the first update uses the initial learning rate.
Called with a Python number, a schedule returns a float64 scalar tensor as well (``float()``
reads it). They are written with ops only, so a compiled step computes the rate itself."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float64
from tensorplug.errors import ArgumentError
from tensorplug.families._common.convert import asarray
from tensorplug.families.elementwise.ops import cos, floor, minimum, where

__all__ = ["Schedule", "step_decay", "piecewise_constant", "exponential_decay", "cosine_decay",
           "linear_warmup"]

#: a learning-rate schedule: the step number (counting from 1) -> the learning rate
Schedule = Callable[[Any], Tensor]


def _done(step: Any) -> Tensor:
    """The updates done before `step` (counting from 1), as a float64 scalar tensor."""
    return asarray(step, dtype=float64) - 1.0


def _number(value: Any, name: str, fn: str, positive: bool = False) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not ok or (value <= 0 if positive else value < 0):
        bound = "> 0" if positive else ">= 0"
        raise ArgumentError(f"schedules.{fn}: {name} must be a finite number {bound}, got {value!r}")
    return float(value)


def step_decay(initial: float, step_size: float, gamma: float = 0.1) -> Schedule:
    """``initial * gamma ** floor(t / step_size)``: the rate multiplied by `gamma` every
    `step_size` updates (PyTorch's ``StepLR`` counted in updates)."""
    initial = _number(initial, "initial", "step_decay", positive=True)
    step_size = _number(step_size, "step_size", "step_decay", positive=True)
    gamma = _number(gamma, "gamma", "step_decay")

    def schedule(step: Any) -> Tensor:
        return initial * gamma ** floor(_done(step) / step_size)

    return schedule


def piecewise_constant(boundaries: Sequence[int], values: Sequence[float]) -> Schedule:
    """``values[0]`` while ``t <= boundaries[0]``, ``values[i]`` while ``boundaries[i-1] < t <=
    boundaries[i]``, ``values[-1]`` after the last boundary (Keras's ``PiecewiseConstantDecay``);
    `boundaries` increasing, one value more than boundaries."""
    bounds = [_number(b, "each boundary", "piecewise_constant") for b in boundaries]
    rates = [_number(v, "each value", "piecewise_constant") for v in values]
    if len(rates) != len(bounds) + 1 or any(a >= b for a, b in zip(bounds, bounds[1:])):
        raise ArgumentError(f"schedules.piecewise_constant: takes increasing boundaries and one value more "
                            f"than boundaries; got {len(bounds)} boundaries {bounds} and {len(rates)} values")

    def schedule(step: Any) -> Tensor:
        t = _done(step)
        rate = asarray(rates[-1], dtype=float64)
        for bound, value in zip(reversed(bounds), reversed(rates[:-1])):
            rate = where(t <= bound, value, rate)
        return rate

    return schedule


def exponential_decay(initial: float, decay_steps: float, decay_rate: float,
                      staircase: bool = False) -> Schedule:
    """``initial * decay_rate ** (t / decay_steps)`` (the exponent floored with `staircase`),
    as Keras's ``ExponentialDecay``."""
    initial = _number(initial, "initial", "exponential_decay", positive=True)
    decay_steps = _number(decay_steps, "decay_steps", "exponential_decay", positive=True)
    decay_rate = _number(decay_rate, "decay_rate", "exponential_decay", positive=True)

    def schedule(step: Any) -> Tensor:
        p = _done(step) / decay_steps
        return initial * decay_rate ** (floor(p) if staircase else p)

    return schedule


def cosine_decay(initial: float, decay_steps: float, alpha: float = 0.0) -> Schedule:
    """``initial * ((1 - alpha) * c + alpha)`` with ``c = (1 + cos(pi * min(t, decay_steps) /
    decay_steps)) / 2``: from `initial` down to the floor ``alpha * initial`` in `decay_steps`
    updates, then constant (Keras's ``CosineDecay``)."""
    initial = _number(initial, "initial", "cosine_decay", positive=True)
    decay_steps = _number(decay_steps, "decay_steps", "cosine_decay", positive=True)
    alpha = _number(alpha, "alpha", "cosine_decay")
    if alpha > 1:
        raise ArgumentError(f"schedules.cosine_decay: alpha (the floor, a fraction of initial) must be in "
                            f"[0, 1], got {alpha!r}")

    def schedule(step: Any) -> Tensor:
        c = (1.0 + cos(minimum(_done(step), decay_steps) * (math.pi / decay_steps))) * 0.5
        return initial * ((1.0 - alpha) * c + alpha)

    return schedule


def linear_warmup(schedule: Schedule | float, warmup_steps: int, start: float = 0.0) -> Schedule:
    """A linear warmup before `schedule` (a schedule or a constant rate): from `start` at
    ``t = 0`` linearly towards the schedule's first rate, reached at ``t = warmup_steps``;
    from there `schedule` runs as if started then (its ``t`` is ``t - warmup_steps``)."""
    warmup = _number(warmup_steps, "warmup_steps", "linear_warmup", positive=True)
    start = _number(start, "start", "linear_warmup")
    if callable(schedule):
        after: Schedule = schedule
    else:
        rate = _number(schedule, "schedule (a constant rate)", "linear_warmup", positive=True)

        def after(step: Any) -> Tensor:
            return asarray(rate, dtype=float64)

    def warmed(step: Any) -> Tensor:
        t = _done(step)
        target = asarray(after(1), dtype=float64)
        ramp = start + (target - start) * (t / warmup)
        return where(t < warmup, ramp, asarray(after(t - warmup + 1.0), dtype=float64))

    return warmed
