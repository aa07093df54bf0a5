"""numpy's floating-point warnings, off inside kernels.

Kernels give IEEE results (``log(0) = -inf``, ``1/0 = inf``, ``0/0 = nan``, ``sqrt(-1) = nan``,
``exp(100) = inf``) silently, as the jax backend and torch do, instead of numpy's
RuntimeWarnings (which ``-W error`` would turn into numpy exceptions raised from inside a
kernel). The exception is plain arithmetic and comparison (``loud``: add, subtract, multiply,
maximum, minimum, negative, ..., a tenth of whose cost the switch would be), which warns as
numpy does when it overflows or meets inf - inf. The setting is numpy's per-context error
state, swapped for the kernel call only, so the user's own numpy code keeps its settings.
numpy 2 keeps that state in a context variable, which is swapped directly (~0.1 us); otherwise
``np.errstate`` does it (~1.5 us).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["quiet", "loud", "QUIET_STATE"]

try:  # numpy >= 2: the error state is this context variable
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE  # type: ignore[attr-defined]

    with np.errstate(all="ignore"):
        QUIET_STATE: Any = _STATE.get()
except (ImportError, AttributeError):  # pragma: no cover - older numpy
    _STATE = None
    QUIET_STATE = None


def quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel `fn` run with numpy's floating-point warnings off. A kernel that says for
    itself (``fn.quiet``: True, it switches them off; False, see ``loud``) is returned as it is."""
    if hasattr(fn, "quiet"):
        return fn
    if _STATE is None:  # pragma: no cover - older numpy
        def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
            with np.errstate(all="ignore"):
                return fn(inputs, attrs, backend)
    else:
        set_state, reset_state = _STATE.set, _STATE.reset

        def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
            token = set_state(QUIET_STATE)
            try:
                return fn(inputs, attrs, backend)
            finally:
                reset_state(token)
    functools.update_wrapper(kernel, fn)
    kernel.quiet = True  # type: ignore[attr-defined]
    return kernel


def loud(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark the kernel `fn` to run with numpy's settings as they are: plain arithmetic and
    comparisons, which give inf or nan only by overflow or from inf and nan inputs, and whose
    cost is too small to pay for the switch."""
    fn.quiet = False  # type: ignore[attr-defined]
    return fn
