"""``tp.jit``: compile a function with the active backend when it can; otherwise run eagerly.

A backend that compiles (e.g. one built on XLA) implements ``Backend.compile``; the numpy
backend does not, so ``tp.jit(f)`` is exactly ``f`` there: same results, no compilation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .backend import active_backend

__all__ = ["jit"]

_EAGER = object()


def jit(f: Callable[..., Any] | None = None, *, static_argnums: int | Sequence[int] = ()) -> Any:
    """Compile `f` on the active backend (per backend, on first call); usable as a decorator
    with or without arguments. Backends that cannot compile run `f` eagerly."""
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        compiled: dict[str, Any] = {}

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            backend = active_backend()
            runner = compiled.get(backend.name)
            if runner is None:
                runner = compiled[backend.name] = backend.compile(fn, statics) or _EAGER
            if runner is _EAGER:
                return fn(*args, **kwargs)
            return runner(*args, **kwargs)

        return wrapper

    return decorate if f is None else decorate(f)
