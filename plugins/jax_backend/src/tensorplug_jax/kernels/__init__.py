"""The JAX kernels, one module per kernel family; each module exposes ``KERNELS``, a dict kernel
name -> kernel function ``(inputs, attrs, backend) -> array``, or a ``JaxKernel`` (a kernel
function and its direct calls). Most are ``jax.jit``-compiled
functions of the input arrays (attributes that shape the computation are static arguments;
numbers that do not, such as a fill value or a seed, are traced, so that new values do not
compile again). Each runs in the backend's scope (64-bit types, its device) and turns jax's
complaints about traced values into TracedValueError naming the kernel."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tensorplug.extend import KernelConfig

from .._scope import scoped
from . import (
    activations,
    convolution,
    creation,
    decompositions,
    einsum,
    elementwise,
    fft,
    fused,
    image,
    indexing,
    layout,
    linalg,
    linspace,
    manipulation,
    multinomial,
    nn,
    normalization,
    optim,
    pooling,
    reductions,
    scatter_nd,
    segments,
    sorting,
    sparse,
    structure,
)
from ._jit import JaxKernel

_FAMILIES = (activations, convolution, creation, decompositions, einsum, elementwise, fft, fused, image,
             indexing, layout, linalg, linspace, manipulation, multinomial, nn, normalization, optim, pooling,
             reductions, scatter_nd, segments, sorting, sparse, structure)


def _where(name: str) -> Any:
    return lambda backend: f"Kernel '{name}' on backend '{backend.name}'"


def _config(name: str, backend_name: str, entry: JaxKernel | Callable[..., Any]) -> KernelConfig:
    kernel = entry if isinstance(entry, JaxKernel) else JaxKernel(entry)
    return KernelConfig(name, backend_name, scoped(kernel, _where(name)), direct=kernel.direct)


def all_kernels(backend_name: str) -> list[KernelConfig]:
    """The backend's kernel configs: the very same objects on every call, so that the plugin
    registering them again (its backend disposed and started anew) repeats, not replaces, them."""
    return list(_configs(backend_name))


@functools.cache
def _configs(backend_name: str) -> tuple[KernelConfig, ...]:
    return tuple(
        _config(name, backend_name, entry)
        for family in _FAMILIES
        for name, entry in family.KERNELS.items()
    )
