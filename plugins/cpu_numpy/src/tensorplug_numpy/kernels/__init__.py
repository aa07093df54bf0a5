"""The NumPy kernels, one module per kernel family; each module exposes ``KERNELS``, a dict
kernel name -> kernel function ``(inputs, attrs, backend) -> array`` or ``Kernel`` (a kernel
function with its direct calls). Every kernel runs with numpy's floating-point warnings off
unless it says it handles them (see ``_quiet``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tensorplug.extend import KernelConfig

from .._quiet import quiet
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
from ._kernel import Kernel

_FAMILIES = (activations, convolution, creation, decompositions, einsum, elementwise, fft, fused, image,
             indexing, layout, linalg, linspace, manipulation, multinomial, nn, normalization, optim, pooling,
             reductions, scatter_nd, segments, sorting, sparse, structure)


def _config(name: str, backend_name: str, entry: Kernel | Callable[..., Any]) -> KernelConfig:
    kernel = entry if isinstance(entry, Kernel) else Kernel(entry)
    func = kernel.func if kernel.handles_warnings else quiet(kernel.func)
    return KernelConfig(name, backend_name, func, direct=kernel.direct)


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
