"""The JAX kernels, one module per kernel family; each module exposes ``KERNELS``, a dict kernel
name -> kernel function ``(inputs, attrs, backend) -> array``, or a ``JaxKernel`` (a kernel
function and its direct calls). Most are ``jax.jit``-compiled
functions of the input arrays (attributes that shape the computation are static arguments;
numbers that do not, such as a fill value or a seed, are traced, so that new values do not
compile again). Each runs in the backend's scope (64-bit types, its device) and turns jax's
complaints about traced values into TracedValueError naming the kernel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.extend import KernelConfig, family_configs
from tensorplug_jax._scope import scoped
from tensorplug_jax.kernels._jit import JaxKernel


def _where(name: str) -> Any:
    return lambda backend: f"Kernel '{name}' on backend '{backend.name}'"


def _config(name: str, backend_name: str, entry: JaxKernel | Callable[..., Any]) -> KernelConfig:
    kernel = entry if isinstance(entry, JaxKernel) else JaxKernel(entry)
    return KernelConfig(name, backend_name, scoped(kernel, _where(name)), direct=kernel.direct)


#: all_kernels(backend_name): every family module's kernels as KernelConfigs (the same objects each call)
all_kernels = family_configs(__name__, _config)
