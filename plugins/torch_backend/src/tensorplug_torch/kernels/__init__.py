"""The torch kernels, one module per kernel family; each module exposes ``KERNELS``, a dict
kernel name -> kernel function ``(inputs, attrs, backend) -> torch.Tensor`` (or a tuple of them
for a kernel of several outputs), or a ``Kernel`` (the function with its direct call). Kernels
read and return torch tensors on the inputs' device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.extend import KernelConfig, family_configs
from tensorplug_torch.kernels._kernel import Kernel


def _config(name: str, backend_name: str, entry: Kernel | Callable[..., Any]) -> KernelConfig:
    if isinstance(entry, Kernel):
        return KernelConfig(name, backend_name, entry.func, direct=entry.direct, dtypes=entry.dtypes)
    return KernelConfig(name, backend_name, entry)


#: all_kernels(backend_name): every family module's kernels as KernelConfigs
all_kernels = family_configs(__name__, _config)
