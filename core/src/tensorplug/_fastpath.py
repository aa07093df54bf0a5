"""Ops' fast paths: an op and its engine call merged into one Python frame, for the commonest
eager call (Tensors the op would hand to its kernel unchanged, a kernel offering a direct call).

``fast_unary(call, dtypes, op)`` (``fast_binary``) returns a function with `op`'s signature:
for Tensor input(s) of one of `dtypes` (both of one dtype), on the active backend, whose
kernel's direct function and output dtype the engine caller `call` already knows, with no tape
or other recorder active, it calls the direct function itself and wraps its output; in every
other case (a first call, Python scalars, another dtype or backend, a tape, a direct function
that raises) it returns ``op(...)``, which the engine serves as before. `dtypes` are the ones
for which `op` passes its inputs to `call` as they are: that is what makes the two agree.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from ._state import backend_var, recorders_var
from .dtypes import DType
from .errors import TensorplugError
from .registry.kernels import KERNELS
from .tensor import Tensor

__all__ = ["fast_unary", "fast_binary"]

_new = object.__new__
F = TypeVar("F", bound=Callable[..., Any])


_Known = tuple[Any, int, Any, dict[DType, DType], frozenset[DType], bool]
_NOTHING_KNOWN: _Known = (None, -1, None, {}, frozenset(), False)  # (never matches a backend)


def _learn(call: Any, accept: frozenset[DType]) -> _Known:
    """What a fast path knows from its engine caller: (backend, registry version, direct
    function, {accepted input dtype: output dtype}, the accepted input dtypes with a direct
    function whose output dtype the engine has yet to learn (a miss for any other input goes
    straight to the op), checked: the direct function raises for inputs the kernel's spec
    refuses)."""
    backend, version, run, outs, checked = call.direct_state()
    if run is None:
        return backend, version, run, {}, frozenset(), checked
    known = {d: o for d, o in outs.items() if o is not None and d in accept}
    unknown = frozenset(d for d, o in outs.items() if o is None and d in accept)
    return backend, version, run, known, unknown, checked


def fast_unary(call: Any, dtypes: Iterable[DType], op: F) -> F:
    """`op` (one argument) with its fast path through the engine caller `call`."""
    accept = frozenset(dtypes)
    get_backend, get_recorders, table = backend_var.get, recorders_var.get, KERNELS
    backend, version, run, outs, unknown, _ = _NOTHING_KNOWN

    def fast(x: Any) -> Any:
        nonlocal backend, version, run, outs, unknown
        if x.__class__ is Tensor and not get_recorders():  # (a tape records through the op)
            b = x._backend
            if b is backend and version == table.version and get_backend() is b:
                dt = outs.get(x._dtype)
                if dt is not None and b.direct_kernels:
                    try:
                        out = run(x._data)
                    except (TensorplugError, Warning):
                        raise
                    except Exception:  # the op's kernel function explains
                        return op(x)
                    t = _new(Tensor)
                    t._data = out
                    t._dtype = dt
                    t._backend = b
                    return t
                if x._dtype not in unknown:  # nothing to learn from this call
                    return op(x)
            out = op(x)
            backend, version, run, outs, unknown, _ = _learn(call, accept)
            return out
        return op(x)

    return cast(F, functools.update_wrapper(fast, op))


def fast_binary(call: Any, dtypes: Iterable[DType], op: F, min_rank: int = 0) -> F:
    """`op` (two arguments, one dtype for both) with its fast path through the engine caller
    `call`; with `min_rank`, only for inputs of at least that many axes (the others: `op`),
    checked here unless the kernel declares its direct functions ``direct_checked`` (and
    until one of them refuses an input)."""
    accept = frozenset(dtypes)
    get_backend, get_recorders, table = backend_var.get, recorders_var.get, KERNELS
    backend, version, run, outs, unknown, _ = _NOTHING_KNOWN
    ranked = min_rank

    def fast(x: Any, y: Any) -> Any:
        nonlocal backend, version, run, outs, unknown, ranked
        if x.__class__ is Tensor and y.__class__ is Tensor and not get_recorders():
            b = x._backend
            if b is backend and y._backend is b and version == table.version and get_backend() is b:
                d = x._dtype
                dt = outs.get(d) if y._dtype is d else None
                if ranked and dt is not None and (len(b.shape_of(x._data)) < min_rank
                                                    or len(b.shape_of(y._data)) < min_rank):
                    return op(x, y)
                if dt is not None and b.direct_kernels:
                    try:
                        out = run(x._data, y._data)
                    except (TensorplugError, Warning):
                        raise
                    except Exception:  # a refusal: from now on, check ranks here (refusing
                        ranked = min_rank  # may cost much, e.g. a jax trace every time)
                        return op(x, y)
                    t = _new(Tensor)
                    t._data = out
                    t._dtype = dt
                    t._backend = b
                    return t
                if d not in unknown:
                    return op(x, y)
            out = op(x, y)
            backend, version, run, outs, unknown, checked = _learn(call, accept)
            ranked = 0 if checked else min_rank
            return out
        return op(x, y)

    return cast(F, functools.update_wrapper(fast, op))
