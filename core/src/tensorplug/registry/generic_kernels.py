"""Generic kernels: kernels the core writes once for every backend, over the backend's own
kernels (the control-flow kernels: a branch or a loop body run with the backend's kernels; and
Threefry2x32, the hash of random keys, over its uint32 kernels). A backend gets them when it
starts, for each such kernel it (and the plugins asked before) did not register natively (jax
registers its own: lax.cond, lax.while_loop, lax.scan, threefry; numpy its own Threefry2x32). They are
registered by ``GENERIC_SOURCE``, not as the core's own entries (a runtime of the core's entries
alone, ``Runtime.core_only``, has none: they come with the backends it starts); replacing one on a
started backend takes ``override=True``."""

from __future__ import annotations

from tensorplug.core.runtime import current
from tensorplug.errors import RegistrationError
from tensorplug.registry._slots import CORE_SOURCE, registering_as
from tensorplug.registry.kernel_config import KernelConfig, KernelFunc
from tensorplug.registry.kernels import register_kernel

__all__ = ["GENERIC_KERNELS", "GENERIC_SOURCE", "declare_generic_kernel", "register_generic_kernels"]

#: who registers the generic kernels (in `tensorplug kernels`, doctor, conflict messages)
GENERIC_SOURCE = f"{CORE_SOURCE} (generic kernels)"

#: kernel name -> the generic kernel function (``func(inputs, attrs, backend)``)
GENERIC_KERNELS: dict[str, KernelFunc] = {}


def declare_generic_kernel(kernel_name: str, func: KernelFunc) -> KernelFunc:
    """Declare the core's generic kernel of `kernel_name` (a module's constant, as specs are)."""
    taken = GENERIC_KERNELS.get(kernel_name)
    if taken is not None and taken is not func:
        raise RegistrationError(f"The core declares two generic kernels for '{kernel_name}'; keep one.")
    GENERIC_KERNELS[kernel_name] = func
    return func


def register_generic_kernels(backend_name: str) -> None:
    """Register the generic kernels `backend_name` has no kernel of its own for (the kernels
    whose spec the runtime holds)."""
    runtime = current()
    with registering_as(GENERIC_SOURCE):
        for kernel_name, func in GENERIC_KERNELS.items():
            key = (kernel_name, backend_name)
            if kernel_name in runtime.specs.active and key not in runtime.kernels.active:
                register_kernel(KernelConfig(kernel_name, backend_name, func))
