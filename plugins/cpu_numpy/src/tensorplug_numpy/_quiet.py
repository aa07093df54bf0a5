"""numpy's floating-point warnings, off inside kernels.

Kernels give IEEE results (``log(0) = -inf``, ``1/0 = inf``, ``0/0 = nan``, ``sqrt(-1) = nan``,
``exp(100) = inf``) silently, as the jax backend and torch do, instead of numpy's
RuntimeWarnings (which ``-W error`` would turn into numpy exceptions raised from inside a
kernel). The exception is plain arithmetic, comparison, sums and the matrix product (add,
subtract, multiply, maximum, minimum, negative, sum, max, matmul, ...), which warn as numpy does
when they overflow or meet inf - inf: the switch would cost a tenth of them.

The setting is numpy's per-context error state, so the user's own numpy code keeps its
settings. numpy 2 keeps that state in a context variable:

- a direct function (a pure function of arrays, see ``quieted``) runs inside one
  ``contextvars.Context`` made once with that variable quiet: ``Context.run`` is a C call
  (~0.05 us). A context is entered by one caller at a time, so while another thread (or a
  call further up) is inside it, the call swaps the variable instead;
- a kernel function swaps the variable around its call (set and reset, ~0.3 us);
- on an older numpy, ``np.errstate`` does it (~1.5 us).
"""

from __future__ import annotations

import contextvars
import functools
import sys
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

# Entering a shared Context relies on the GIL to refuse a second entrant cleanly; a
# free-threaded build always swaps.
_SHARE_CONTEXT = _STATE is not None and getattr(sys, "_is_gil_enabled", lambda: True)()


def _swapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with numpy's error state swapped to quiet around each call."""
    if _STATE is None:  # pragma: no cover - older numpy
        def run_errstate(*args: Any) -> Any:
            with np.errstate(all="ignore"):
                return fn(*args)
        return run_errstate
    set_state, reset_state = _STATE.set, _STATE.reset

    def run(*args: Any) -> Any:
        token = set_state(_QUIET)
        try:
            return fn(*args)
        finally:
            reset_state(token)
    return run


def quieted(fn: Callable[..., Any], arity: int = 1) -> Callable[..., Any]:
    """`fn` of `arity` numpy arrays (any number if 0), run with numpy's floating-point
    warnings off. `fn` must be a pure function of its arrays (it may run a second time when
    it raises RuntimeError: see the module's docstring)."""
    swapped = _swapped(fn)
    if not _SHARE_CONTEXT:
        run_swapped = swapped
    else:
        context = contextvars.Context()
        context.run(_STATE.set, _QUIET)
        inside = functools.partial(context.run, fn)
        if arity == 1:
            def run(x: Any) -> Any:
                try:
                    return inside(x)
                except RuntimeError:  # the context is entered already: swap instead
                    return swapped(x)
        elif arity == 2:
            def run(x: Any, y: Any) -> Any:  # type: ignore[misc]
                try:
                    return inside(x, y)
                except RuntimeError:
                    return swapped(x, y)
        else:
            def run(*args: Any) -> Any:  # type: ignore[misc]
                try:
                    return inside(*args)
                except RuntimeError:
                    return swapped(*args)
        run_swapped = run
    run_swapped.__name__ = run_swapped.__qualname__ = getattr(fn, "__name__", "kernel")
    return run_swapped


def quiet(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel function `kernel(inputs, attrs, backend)` run with numpy's floating-point
    warnings off (swapped around the call: a kernel function may run anything)."""
    return functools.update_wrapper(_swapped(kernel), kernel)
