"""The kernel registry: (kernel name, backend name) -> KernelConfig."""

from __future__ import annotations

import warnings

from tensorplug.core.runtime import current
from tensorplug.errors import KernelNotFoundError, RegistrationError, TensorplugPluginWarning
from tensorplug.registry._slots import Registration, current_source
from tensorplug.registry.kernel_config import DirectCall, KernelConfig, KernelFunc, check_kernel_config
from tensorplug.registry.specs import spec_not_found

__all__ = [
    "KernelConfig",
    "KernelFunc",
    "DirectCall",
    "register_kernel",
    "unregister_kernel",
    "get_kernel",
    "kernels_for_backend",
    "backends_with_kernel",
    "missing_kernel_error",
]


def register_kernel(config: KernelConfig, *, override: bool = False,
                    priority: int = 0) -> Registration[KernelConfig]:
    """Register a kernel; identical re-registration is a no-op, a different one for a taken
    slot raises RegistrationError naming both registrants unless ``override=True``."""
    if not isinstance(config, KernelConfig):
        raise RegistrationError(
            f"register_kernel takes a KernelConfig, got {type(config).__name__}: build one with "
            "KernelConfig(kernel_name, backend_name, kernel_func)."
        )
    runtime = current()
    spec = runtime.specs.active.get(config.kernel_name)
    if spec is None:
        raise spec_not_found(config.kernel_name)
    check_kernel_config(config, spec)
    _warn_legacy_attributes(config, runtime.warned_legacy)
    key = (config.kernel_name, config.backend_name)
    before = runtime.kernels.active.get(key)
    reg = runtime.kernels.add(key, config, override=override, priority=priority)
    _active_changed(before, runtime.kernels.active.get(key))
    return reg


# Function attributes through which API-1 backends offered direct calls before KernelConfig.direct.
_LEGACY_ATTRIBUTES = ("direct", "direct_attrs", "direct_dtypes", "direct_checked")


def _warn_legacy_attributes(config: KernelConfig, warned: set[str]) -> None:
    """Once per registrant (`warned` holds those told), not once per kernel."""
    legacy = [a for a in _LEGACY_ATTRIBUTES if hasattr(config.kernel_func, a)]
    if legacy and config.direct is None and current_source() not in warned:
        warned.add(current_source())
        warnings.warn(
            f"Kernel '{config.kernel_name}' for backend '{config.backend_name}' (registered by "
            f"'{current_source()}') sets {', '.join(legacy)} on its kernel function; tensorplug "
            "ignores such attributes and runs the kernel function (other kernels of this registrant "
            "may do the same; this is said once). Declare direct calls in "
            "KernelConfig(..., direct=DirectCall(dtypes, function)) instead (see the backend "
            "guide, 'Direct calls').",
            TensorplugPluginWarning, stacklevel=3,
        )


def unregister_kernel(kernel_name: str, backend_name: str, source: str | None = None) -> None:
    """Remove the active kernel of the slot (or `source`'s); the one beneath becomes active."""
    key = (kernel_name, backend_name)
    kernels = current().kernels
    before = kernels.active.get(key)
    kernels.remove(key, source)
    _active_changed(before, kernels.active.get(key))


def _active_changed(before: KernelConfig | None, after: KernelConfig | None) -> None:
    """Only a slot's active kernel is set up on a started backend: the one that stops being
    active (shadowed or unregistered) is disposed, the one that becomes active is set up."""
    if before is after:
        return
    from tensorplug.backends.lifecycle import kernel_changed  # (the backend module sits above the registries)

    if before is not None:
        kernel_changed(before, "dispose")
    if after is not None:
        kernel_changed(after, "setup")


def get_kernel(kernel_name: str, backend_name: str) -> KernelConfig:
    """The active kernel config; KernelNotFoundError (a LookupError) if there is none."""
    config = current().kernels.active.get((kernel_name, backend_name))
    if config is None:
        raise missing_kernel_error(kernel_name, backend_name)
    return config


def kernels_for_backend(backend_name: str) -> list[KernelConfig]:
    """Every active kernel config of a backend, sorted by kernel name."""
    return sorted(
        (c for (k, b), c in current().kernels.active.items() if b == backend_name),
        key=lambda c: c.kernel_name,
    )


def backends_with_kernel(kernel_name: str) -> list[str]:
    """Names of the backends with a kernel registered for `kernel_name`, sorted (a backend not
    started yet has registered none: ``missing_kernel_error`` asks its plugins)."""
    return sorted(b for (k, b) in current().kernels.active if k == kernel_name)


def missing_kernel_error(kernel_name: str, backend_name: str) -> KernelNotFoundError:
    if kernel_name not in current().specs.active:
        return KernelNotFoundError(str(spec_not_found(kernel_name)))
    others = backends_with_kernel(kernel_name)
    if not others:  # backends not started yet have registered nothing: ask their plugins
        from tensorplug.plugins.manager import offered_by_unstarted_backends  # (plugins sit above)

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
