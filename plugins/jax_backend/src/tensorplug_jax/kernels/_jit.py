"""Building kernels from jax functions: ``JaxKernel`` (a kernel function and the direct calls
it offers), and the builders every kernel family uses."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from tensorplug.dtypes import bool_, float32, from_numpy_dtype, int32
from tensorplug.extend import DirectCall, KernelFunc

__all__ = ["JaxKernel", "NARROW", "unary", "binary", "with_attrs", "narrow", "variants", "is_traced"]

_Tracer = jax.core.Tracer

#: The 32-bit dtypes an elementwise kernel gives back as they come, creating no array of a
#: default dtype: jax's default 32-bit mode computes them exactly as the backend's 64-bit scope
#: would, so their compiled functions can run without the scope (see ``_scope``).
NARROW = (float32, int32, bool_)


@dataclass(frozen=True)
class JaxKernel:
    """A kernel function of this backend and its direct calls: compiled functions that, for
    inputs of ``direct.dtypes`` only, compute without the backend's scope what the kernel
    computes in it. ``_scope.scoped`` calls them unscoped too, and the dispatcher directly."""

    func: KernelFunc
    direct: DirectCall | None = None


def is_traced(*arrays: Any) -> bool:
    """Whether any of `arrays` is a tracer (the kernel runs inside tp.jit): no values to check."""
    return any(isinstance(a, _Tracer) for a in arrays)


def unary(fn: Callable[[Any], Any]) -> JaxKernel:
    """A kernel of one input and no attributes: ``jax.jit(fn)(x)``, direct for NARROW dtypes."""
    jitted = jax.jit(fn)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return jitted(inputs[0])

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return JaxKernel(kernel, DirectCall(NARROW, jitted))


def binary(fn: Callable[[Any, Any], Any]) -> JaxKernel:
    """A kernel of two inputs and no attributes: ``jax.jit(fn)(x, y)``, direct for NARROW dtypes."""
    jitted = jax.jit(fn)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x, y = inputs
        return jitted(x, y)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return JaxKernel(kernel, DirectCall(NARROW, jitted))


def variants(fn: Callable[..., Any], static: tuple[str, ...]) -> Callable[[Mapping[str, Any]], Any]:
    """``attrs -> jax.jit(partial(fn, **static attrs))``, compiled once per value of the `static`
    attributes (hashable; they shape the computation). Specializing on them, rather than passing
    them as jax static arguments, keeps every call on jax's fastest dispatch path (~2 us less)."""
    compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}

    def specialize(attrs: Mapping[str, Any]) -> Callable[..., Any]:
        key = tuple([attrs[n] for n in static])
        run = compiled.get(key)
        if run is None:
            run = compiled[key] = jax.jit(functools.partial(fn, **dict(zip(static, key))))
        return run

    specialize.__name__ = f"variants_{getattr(fn, '__name__', 'kernel')}"
    return specialize


def with_attrs(fn: Callable[..., Any], static: tuple[str, ...] = (),
               traced: tuple[str, ...] = ()) -> KernelFunc:
    """A kernel ``fn(*inputs, **attrs)`` compiled with ``jax.jit``: one compiled function per
    value of the `static` attributes (see ``variants``), called with the `traced` ones (numbers
    that do not shape the computation: a new value does not compile again)."""
    if not static:
        jitted = jax.jit(fn)

        def plain(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
            return jitted(*inputs, **{n: attrs[n] for n in traced})

        plain.__name__ = getattr(fn, "__name__", "kernel")
        return plain

    specialize = variants(fn, static)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        run = specialize(attrs)
        if traced:
            return run(*inputs, **{n: attrs[n] for n in traced})
        return run(*inputs)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


def narrow(fn: Callable[..., Any], static: tuple[str, ...], *dtypes: Any) -> JaxKernel:
    """A kernel ``fn(*inputs, **attrs)`` whose attributes are all `static`, and which, given
    inputs of only these (32-bit numpy) dtypes, returns them and creates no array of a default
    dtype: its compiled variants (``variants``) are its direct calls for those dtypes."""
    specialize = variants(fn, static)

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return specialize(attrs)(*inputs)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    direct = DirectCall([from_numpy_dtype(np.dtype(d)) for d in dtypes], specialize=specialize)
    return JaxKernel(kernel, direct)
