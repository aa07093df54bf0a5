"""The plugin module named by the entry point: hook implementations only."""

from __future__ import annotations

from typing import Any

from tensorplug.extend import API_VERSION, BackendConfig, hookimpl
from tensorplug_torch import kernels
from tensorplug_torch.backend import HELD_DTYPES, TorchBackend

tensorplug_api_version = API_VERSION
BACKEND_NAME = "torch"


@hookimpl
def tensorplug_backends(register: Any) -> None:
    register(BackendConfig(BACKEND_NAME, TorchBackend, priority=0, dtypes=HELD_DTYPES))


@hookimpl
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    if backend_name == BACKEND_NAME:
        for config in kernels.all_kernels(BACKEND_NAME):
            register(config)
