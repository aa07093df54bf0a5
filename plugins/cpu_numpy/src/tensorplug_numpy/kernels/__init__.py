"""The NumPy kernels, one module per kernel family; each module exposes ``KERNELS``, a dict
kernel name -> kernel function ``(inputs, attrs, backend) -> array``."""

from __future__ import annotations

from tensorplug.extend import KernelConfig

from . import creation, elementwise, indexing, linalg, manipulation, nn, optim, reductions

_FAMILIES = (creation, elementwise, indexing, linalg, manipulation, nn, optim, reductions)


def all_kernels(backend_name: str) -> list[KernelConfig]:
    return [
        KernelConfig(name, backend_name, func)
        for family in _FAMILIES
        for name, func in family.KERNELS.items()
    ]
