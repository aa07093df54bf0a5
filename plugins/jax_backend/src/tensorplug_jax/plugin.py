"""The plugin module named by the entry point: hook implementations only. Nothing here imports
jax; the backend's factory and its kernels do, when the backend starts."""

from __future__ import annotations

from typing import Any

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import API_VERSION, Backend, BackendConfig, hookimpl
from tensorplug_jax import BACKEND_NAME

tensorplug_api_version = API_VERSION

#: Below the numpy backend (priority 1): installing jax does not change the default backend;
#: choose it with tp.set_backend("jax") or TENSORPLUG_BACKEND=jax.
PRIORITY = 0


def _start() -> Backend:
    from tensorplug_jax.backend import JaxBackend  # imports jax

    return JaxBackend()


@hookimpl
def tensorplug_backends(register: Any) -> None:
    # every dtype: its kernels run in the backend's scope, with 64-bit types on (``_scope``)
    register(BackendConfig(BACKEND_NAME, _start, priority=PRIORITY, dtypes=ALL_DTYPES))


@hookimpl
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    if backend_name == BACKEND_NAME:
        from tensorplug_jax import kernels  # imports jax

        for config in kernels.all_kernels(BACKEND_NAME):
            register(config)
