"""numpy's floating-point warnings, off inside kernels.

Kernels give IEEE results (``log(0) = -inf``, ``1/0 = inf``, ``0/0 = nan``, ``sqrt(-1) = nan``,
``exp(100) = inf``) silently, as the jax backend and torch do, instead of numpy's
RuntimeWarnings (which ``-W error`` would turn into numpy exceptions raised from inside a
kernel). The exception is plain arithmetic, comparison, sums and the matrix product (add,
subtract, multiply, maximum, minimum, negative, sum, max, matmul, ..., a tenth of whose cost
the switch would be),
which warns as numpy does when it overflows or meets inf - inf. The setting is numpy's
per-context error state, swapped for the call only, so the user's own numpy code keeps its
settings. numpy 2 keeps that state in
a context variable, which is swapped directly (~0.1 us); otherwise ``np.errstate`` does it
(~1.5 us).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["quiet", "quieted"]

try:  # numpy >= 2: the error state is this context variable
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE  # type: ignore[attr-defined]

    with np.errstate(all="ignore"):
        _QUIET: Any = _STATE.get()
except (ImportError, AttributeError):  # pragma: no cover - older numpy
    _STATE = None
    _QUIET = None


def quieted(fn: Callable[..., Any], arity: int = 1) -> Callable[..., Any]:
    """`fn` of `arity` numpy arrays (any number if 0), run with numpy's floating-point
    warnings off."""
    if _STATE is None:  # pragma: no cover - older numpy
        def run_any(*args: Any) -> Any:
            with np.errstate(all="ignore"):
                return fn(*args)
        return functools.update_wrapper(run_any, fn)
    set_state, reset_state = _STATE.set, _STATE.reset
    if arity == 1:
        def run(x: Any) -> Any:
            token = set_state(_QUIET)
            try:
                return fn(x)
            finally:
                reset_state(token)
    elif arity == 2:
        def run(x: Any, y: Any) -> Any:  # type: ignore[misc]
            token = set_state(_QUIET)
            try:
                return fn(x, y)
            finally:
                reset_state(token)
    else:
        def run(*args: Any) -> Any:  # type: ignore[misc]
            token = set_state(_QUIET)
            try:
                return fn(*args)
            finally:
                reset_state(token)
    run.__name__ = run.__qualname__ = getattr(fn, "__name__", "kernel")
    return run


def quiet(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel function `kernel(inputs, attrs, backend)` run with numpy's floating-point
    warnings off."""
    run = quieted(kernel, arity=0)
    functools.update_wrapper(run, kernel)
    return run
