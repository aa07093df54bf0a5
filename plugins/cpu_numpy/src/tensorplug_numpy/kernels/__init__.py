"""The NumPy kernels, one module per kernel family; each module exposes ``KERNELS``, a dict
kernel name -> kernel function ``(inputs, attrs, backend) -> array`` or ``Kernel`` (a kernel
function with its direct calls). Every kernel runs with numpy's floating-point warnings off
unless it says it handles them (see ``_quiet``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.extend import KernelConfig, family_configs
from tensorplug_numpy._quiet import quiet
from tensorplug_numpy.kernels._kernel import Kernel


def _config(name: str, backend_name: str, entry: Kernel | Callable[..., Any]) -> KernelConfig:
    kernel = entry if isinstance(entry, Kernel) else Kernel(entry)
    func = kernel.func if kernel.handles_warnings else quiet(kernel.func)
    return KernelConfig(name, backend_name, func, direct=kernel.direct)


#: all_kernels(backend_name): every family module's kernels as KernelConfigs (the same objects each call)
all_kernels = family_configs(__name__, _config)
