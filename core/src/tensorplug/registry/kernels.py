"""The kernel registry: (kernel name, backend name) -> KernelConfig, with the setup and dispose
of a started backend's kernels as its slots change. Looking a kernel up with an error that says
which backend would offer it is ``kernels.lookup`` (it asks the plugins, which sit above)."""

from __future__ import annotations

import warnings

from tensorplug.core.runtime import current
from tensorplug.errors import RegistrationError, TensorplugPluginWarning
from tensorplug.registry._slots import Registration, current_source
from tensorplug.registry.kernel_config import DirectCall, KernelConfig, KernelFunc, check_kernel_config
from tensorplug.registry.specs import spec_not_found

__all__ = [
    "KernelConfig",
    "KernelFunc",
    "DirectCall",
    "register_kernel",
    "unregister_kernel",
    "kernels_for_backend",
    "backends_with_kernel",
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
    if before is not None:
        _kernel_changed(before, "dispose")
    if after is not None:
        _kernel_changed(after, "setup")


def _kernel_changed(config: KernelConfig, event: str) -> None:
    """A kernel became active ("setup") or stopped being active ("dispose") in its slot: run its
    setup or dispose function if its backend is started (or starting)."""
    runtime = current()
    backend = runtime.instances.get(config.backend_name) or runtime.starting.get(config.backend_name)
    if backend is None:
        return
    func = config.setup_func if event == "setup" else config.dispose_func
    if func is not None:
        func(backend)


def kernels_for_backend(backend_name: str) -> list[KernelConfig]:
    """Every active kernel config of a backend, sorted by kernel name."""
    return sorted(
        (c for (k, b), c in current().kernels.active.items() if b == backend_name),
        key=lambda c: c.kernel_name,
    )


def backends_with_kernel(kernel_name: str) -> list[str]:
    """Names of the backends with a kernel registered for `kernel_name`, sorted (a backend not
    started yet has registered none: ``kernels.lookup.missing_kernel_error`` asks its plugins)."""
    return sorted(b for (k, b) in current().kernels.active if k == kernel_name)
