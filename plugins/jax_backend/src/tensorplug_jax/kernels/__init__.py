"""The JAX kernels, one module per kernel family; each module exposes ``KERNELS``, a dict kernel
name -> kernel function ``(inputs, attrs, backend) -> array``. Most are ``jax.jit``-compiled
functions of the input arrays (attributes that shape the computation are static arguments;
numbers that do not, such as a fill value or a seed, are traced, so that new values do not
compile again). Each runs in the backend's scope (64-bit types, its device) and turns jax's
complaints about traced values into TracedValueError naming the kernel."""

from __future__ import annotations

from typing import Any

from tensorplug.extend import KernelConfig

from .._scope import scoped
from . import creation, elementwise, indexing, linalg, manipulation, nn, optim, reductions

_FAMILIES = (creation, elementwise, indexing, linalg, manipulation, nn, optim, reductions)


def _where(name: str) -> Any:
    return lambda backend: f"Kernel '{name}' on backend '{backend.name}'"


def all_kernels(backend_name: str) -> list[KernelConfig]:
    return [
        KernelConfig(name, backend_name, scoped(func, _where(name)))
        for family in _FAMILIES
        for name, func in family.KERNELS.items()
    ]
