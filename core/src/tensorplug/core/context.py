"""Per-thread (per-context) engine state: the active backend and the active recorders (tapes
being recorded, kernel counters, profiles). Kept in ContextVars: a read costs a few tens of
nanoseconds, and each thread starts with its own (empty) values.

A recorder has ``record(name, inputs, attrs, outputs, custom=None, start=0, direct=None)``,
called after every kernel call in its context: `inputs` and `outputs` are Tensors, `custom` a
custom gradient's function (an entry that is no kernel call), `start` the
``time.perf_counter_ns()`` taken just before the kernel ran while a profile is recording in the
process (else 0), `direct` the direct function (``DirectCall``) the dispatcher ran in place of
the kernel function (None: the kernel function ran; the planner replays what ran)."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.tools.check_recorders import checks_from_environment

__all__ = ["CustomRule", "record_custom",
           "backend_var", "recorders_var", "jit_trace_var", "jit_tracing", "count_traces", "plan_trace_var",
           "push_recorder", "remove_recorder", "state", "profiling", "gradient_var"]

backend_var: contextvars.ContextVar[Any] = contextvars.ContextVar("tensorplug_backend", default=None)
# (every context starts with the debug modes' checks the environment turns on: tensorplug.tools.debug)
recorders_var: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar(
    "tensorplug_recorders", default=checks_from_environment()  # noqa: B039  (a tuple: immutable)
)
# The tp.jit trace in progress in this context (tensorplug.transforms.jit.trace.Trace), or
# None: Variables and optimizers report to it what state they read and write.
jit_trace_var: contextvars.ContextVar[Any] = contextvars.ContextVar("tensorplug_jit_trace", default=None)
# How many tp.jit traces are in progress in the process (any thread): when 0, hot paths skip
# reading jit_trace_var. Changed with count_traces (under one lock); read without it (only its
# zero-ness matters).
jit_tracing = [0]
_tracing_lock = threading.Lock()


def count_traces(change: int) -> None:
    """Add `change` (1 as a trace starts, -1 as it ends) to ``jit_tracing``, under its lock."""
    with _tracing_lock:
        jit_tracing[0] += change
# The planner's recorder while it traces a function in this context
# (tensorplug.transforms.jit.planner), or None: it knows which native arrays depend on the
# function's inputs (their values cannot be read).
plan_trace_var: contextvars.ContextVar[Any] = contextvars.ContextVar("tensorplug_plan_trace", default=None)
# How many profiles (tp.profile) are recording in the process (any thread): when 0, the
# dispatcher takes no time stamps.
profiling = [0]
# While the tape's backward pass runs in this context: a one-item list holding the name of the
# kernel whose gradient is running (the profiler reads it); None otherwise.
gradient_var: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("tensorplug_gradient",
                                                                                default=None)


def push_recorder(recorder: Any) -> None:
    recorders_var.set(recorders_var.get() + (recorder,))


def remove_recorder(recorder: Any) -> None:
    current = recorders_var.get()
    for i in range(len(current) - 1, -1, -1):
        if current[i] is recorder:
            recorders_var.set(current[:i] + current[i + 1:])
            return


class _StateView:
    """Attribute-style access to the context variables, for code off the hot path."""

    @property
    def backend(self) -> Any:
        return backend_var.get()

    @backend.setter
    def backend(self, value: Any) -> None:
        backend_var.set(value)

    @property
    def tapes(self) -> tuple[Any, ...]:
        """The active recorders, innermost last (tapes and other recorders such as counters)."""
        return recorders_var.get()

    @tapes.setter
    def tapes(self, value: tuple[Any, ...]) -> None:
        recorders_var.set(tuple(value))


state = _StateView()


# -- entries with derivatives of their own (tp.custom_grad, tp.device_put, ...) ---------------
# custom gradient: receives the upstream gradient(s), returns one gradient (or None) per input
CustomGrad = Callable[[Any], Sequence[Any]]
# custom JVP: receives one tangent per input (zeros where none), returns the output's tangent
# (a tuple of them for several outputs)
CustomJvp = Callable[[tuple[Any, ...]], Any]


class CustomRule:
    """The derivatives of a recorded function that is no kernel call (tp.custom_grad,
    tp.custom_jvp, tp.checkpoint): `grad` for reverse mode; `jvp` for forward mode, None where
    forward mode transposes `grad`."""

    __slots__ = ("grad", "jvp")

    def __init__(self, grad: CustomGrad, jvp: CustomJvp | None = None) -> None:
        self.grad = grad
        self.jvp = jvp


def record_custom(name: str, inputs: tuple[Any, ...], outputs: tuple[Any, ...],
                  grad: CustomGrad, jvp: CustomJvp | None = None) -> None:
    """Record an entry with its own derivatives (see CustomRule) on every recorder."""
    rule = CustomRule(grad, jvp)
    for recorder in recorders_var.get():
        recorder.record(name, inputs, {}, outputs, rule)
