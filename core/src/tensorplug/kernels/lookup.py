"""Looking a kernel up for a backend: ``get_kernel``, and the KernelNotFoundError that says where
the kernel is instead (a started backend, or an installed one not started yet, whose plugins
are asked). Above the plugin manager, which sits above the kernel registry it reads."""

from __future__ import annotations

from tensorplug.core.runtime import current
from tensorplug.errors import KernelNotFoundError
from tensorplug.plugins.manager import offered_by_unstarted_backends
from tensorplug.registry.kernel_config import KernelConfig
from tensorplug.registry.kernels import backends_with_kernel
from tensorplug.registry.specs import spec_not_found

__all__ = ["get_kernel", "missing_kernel_error"]


def get_kernel(kernel_name: str, backend_name: str) -> KernelConfig:
    """The active kernel config; KernelNotFoundError (a LookupError) if there is none."""
    config = current().kernels.active.get((kernel_name, backend_name))
    if config is None:
        raise missing_kernel_error(kernel_name, backend_name)
    return config


def missing_kernel_error(kernel_name: str, backend_name: str) -> KernelNotFoundError:
    """The error for a kernel `backend_name` lacks: it names the backends that have it, or would
    register it when they start, and how to switch to one."""
    if kernel_name not in current().specs.active:
        return KernelNotFoundError(str(spec_not_found(kernel_name)))
    others = backends_with_kernel(kernel_name)
    if not others:  # backends not started yet have registered nothing: ask their plugins
        offered = offered_by_unstarted_backends(kernel_name)
        if offered:
            names = ", ".join(repr(b) for b in offered)
            return KernelNotFoundError(
                f"Kernel '{kernel_name}' is not registered for backend '{backend_name}'; the "
                f"installed backend(s) {names} provide it (not started yet). Call "
                f"tp.set_backend({offered[0]!r}), or install a plugin that provides it for "
                f"'{backend_name}'."
            )
    if others:
        where = f"it is registered for {', '.join(repr(b) for b in others)}"
        fix = f"Install a plugin that provides it, or call tp.set_backend({others[0]!r})."
    else:
        where = "no installed backend provides it"
        fix = "Install a plugin that provides it, or register one with tensorplug.extend.register_kernel."
    return KernelNotFoundError(
        f"Kernel '{kernel_name}' is not registered for backend '{backend_name}'; {where}. {fix}"
    )
