"""The plugin module named by the entry point: hook implementations only. Nothing here imports
torch: the backend's factory does, and the kernel family modules, which ``kernels.all_kernels``
imports on its first call, when the backend starts."""

from __future__ import annotations

from typing import Any

from tensorplug.extend import API_VERSION, Backend, BackendConfig, hookimpl
from tensorplug_torch import BACKEND_NAME, HELD_DTYPES, kernels

tensorplug_api_version = API_VERSION


def _start() -> Backend:
    from tensorplug_torch.backend import TorchBackend  # imports torch

    return TorchBackend()


@hookimpl
def tensorplug_backends(register: Any) -> None:
    register(BackendConfig(BACKEND_NAME, _start, priority=0, dtypes=HELD_DTYPES))


@hookimpl
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    if backend_name == BACKEND_NAME:
        for config in kernels.all_kernels(BACKEND_NAME):
            register(config)
