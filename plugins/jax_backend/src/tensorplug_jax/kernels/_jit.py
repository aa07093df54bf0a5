"""Building kernels from jax functions."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

__all__ = ["unary", "binary", "with_attrs", "narrow", "is_traced"]

_Tracer = jax.core.Tracer


def is_traced(*arrays: Any) -> bool:
    """Whether any of `arrays` is a tracer (the kernel runs inside tp.jit): no values to check."""
    return any(isinstance(a, _Tracer) for a in arrays)


def _direct(kernel: Any, jitted: Any, arity: int) -> None:
    """Mark `kernel` as calling `jitted` on its first `arity` inputs: _scope.scoped calls it
    directly."""
    kernel.jitted, kernel.arity = jitted, arity


def unary(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    """A kernel of one input and no attributes: ``jax.jit(fn)(x)``."""
    jitted = jax.jit(fn)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return jitted(inputs[0])

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    _direct(kernel, jitted, 1)
    return kernel


def binary(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """A kernel of two inputs and no attributes: ``jax.jit(fn)(x, y)``."""
    jitted = jax.jit(fn)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x, y = inputs
        return jitted(x, y)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    _direct(kernel, jitted, 2)
    return kernel


def narrow(kernel: Callable[..., Any], *dtypes: Any) -> Callable[..., Any]:
    """Declare that `kernel`, given inputs of only these (32-bit) dtypes, returns them and
    creates no array of a default dtype, so that jax's 32-bit mode computes what the 64-bit
    scope would: ``_scope.scoped`` then calls it without the scope."""
    kernel.narrow = frozenset(np.dtype(d) for d in dtypes)  # type: ignore[attr-defined]
    return kernel


def with_attrs(fn: Callable[..., Any], static: tuple[str, ...] = (),
               traced: tuple[str, ...] = ()) -> Callable[..., Any]:
    """A kernel ``fn(*inputs, **attrs)`` compiled with ``jax.jit``: one compiled function per
    value of the `static` attributes (hashable; they shape the computation), called with the
    `traced` ones (numbers that do not: a new value does not compile again). Specializing on
    the static values, rather than passing them as jax static arguments, keeps every call on
    jax's fastest dispatch path (~2 us less per call)."""
    if not static:
        jitted = jax.jit(fn)

        def plain(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
            return jitted(*inputs, **{n: attrs[n] for n in traced})

        plain.__name__ = getattr(fn, "__name__", "kernel")
        return plain

    compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        key = tuple([attrs[n] for n in static])
        run = compiled.get(key)
        if run is None:
            run = compiled[key] = jax.jit(functools.partial(fn, **dict(zip(static, key))))
        if traced:
            return run(*inputs, **{n: attrs[n] for n in traced})
        return run(*inputs)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    if not traced:  # the compiled functions, by attribute values: the engine's direct calls
        kernel.direct, kernel.direct_attrs = compiled, static  # type: ignore[attr-defined]
    return kernel
