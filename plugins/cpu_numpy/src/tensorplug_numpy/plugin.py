"""The plugin module named by the entry point: hook implementations only."""

from __future__ import annotations

from typing import Any

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import API_VERSION, BackendConfig, hookimpl
from tensorplug_numpy import kernels
from tensorplug_numpy.backend import NumpyBackend

tensorplug_api_version = API_VERSION
BACKEND_NAME = "numpy"


@hookimpl
def tensorplug_backends(register: Any) -> None:
    register(BackendConfig(BACKEND_NAME, NumpyBackend, priority=1, dtypes=ALL_DTYPES))


@hookimpl
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    if backend_name == BACKEND_NAME:
        for config in kernels.all_kernels(BACKEND_NAME):
            register(config)
