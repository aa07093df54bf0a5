"""The torch kernels, one module per kernel family; each module exposes ``KERNELS``, a dict
kernel name -> kernel function ``(inputs, attrs, backend) -> torch.Tensor`` (or a tuple of them
for a kernel of several outputs). Kernels read and return torch tensors on the inputs' device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.extend import KernelConfig, family_configs


def _config(name: str, backend_name: str, func: Callable[..., Any]) -> KernelConfig:
    return KernelConfig(name, backend_name, func)


#: all_kernels(backend_name): every family module's kernels as KernelConfigs
all_kernels = family_configs(__name__, _config)
