"""The NumPy kernels, one module per kernel family; each module exposes ``KERNELS``, a dict
kernel name -> kernel function ``(inputs, attrs, backend) -> array``. Every kernel runs with
numpy's floating-point warnings off (see ``_quiet``)."""

from __future__ import annotations

from tensorplug.extend import KernelConfig

from .._quiet import quiet
from . import creation, elementwise, indexing, linalg, manipulation, nn, optim, reductions

_FAMILIES = (creation, elementwise, indexing, linalg, manipulation, nn, optim, reductions)


def all_kernels(backend_name: str) -> list[KernelConfig]:
    return [
        KernelConfig(name, backend_name, quiet(func))
        for family in _FAMILIES
        for name, func in family.KERNELS.items()
    ]
