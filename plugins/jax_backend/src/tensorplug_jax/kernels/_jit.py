"""Building kernels from jax functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

__all__ = ["unary", "binary", "with_attrs", "is_traced"]

_Tracer = jax.core.Tracer


def is_traced(*arrays: Any) -> bool:
    """Whether any of `arrays` is a tracer (the kernel runs inside tp.jit): no values to check."""
    return any(isinstance(a, _Tracer) for a in arrays)


def unary(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    """A kernel of one input and no attributes: ``jax.jit(fn)(x)``."""
    jitted = jax.jit(fn)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return jitted(inputs[0])

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


def binary(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """A kernel of two inputs and no attributes: ``jax.jit(fn)(x, y)``."""
    jitted = jax.jit(fn)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x, y = inputs
        return jitted(x, y)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


def with_attrs(fn: Callable[..., Any], static: tuple[str, ...] = (),
               traced: tuple[str, ...] = ()) -> Callable[..., Any]:
    """A kernel ``jax.jit(fn)(*inputs, **attrs)``: the `static` attributes (hashable; a new
    value compiles again) and the `traced` ones (numbers passed as arguments)."""
    jitted = jax.jit(fn, static_argnames=static)
    names = static + traced

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return jitted(*inputs, **{n: attrs[n] for n in names})

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel
