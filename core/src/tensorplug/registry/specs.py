"""The kernel spec registry: kernel name -> KernelSpec."""

from __future__ import annotations

import difflib

from tensorplug.core.runtime import current
from tensorplug.errors import KernelSpecNotFoundError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.kernels.tfjs_names import tfjs_hint

__all__ = [
    "register_kernel_spec",
    "unregister_kernel_spec",
    "get_kernel_spec",
    "list_kernel_specs",
]


def register_kernel_spec(spec: KernelSpec, *, override: bool = False, priority: int = 0) -> KernelSpec:
    """Declare a kernel name and its contract; returns the spec (handy as a module constant)."""
    if not isinstance(spec, KernelSpec):
        raise TypeError(f"register_kernel_spec takes a KernelSpec, got {type(spec).__name__}")
    current().specs.add(spec.name, spec, override=override, priority=priority)
    return spec


def unregister_kernel_spec(name: str, source: str | None = None) -> None:
    """Remove the active spec of `name` (or `source`'s); the one beneath becomes active."""
    current().specs.remove(name, source)


def get_kernel_spec(name: str) -> KernelSpec:
    """The spec of `name`; KernelSpecNotFoundError (a LookupError) naming close matches."""
    spec = current().specs.active.get(name)
    if spec is None:
        raise spec_not_found(name)
    return spec


def spec_not_found(name: str) -> KernelSpecNotFoundError:
    names = {str(k).lower(): str(k) for k in current().specs.active}
    close = [names[c] for c in difflib.get_close_matches(str(name).lower(), list(names), n=3)]
    alias, op_hint = tfjs_hint(name)  # TF.js's name of a kernel tensorplug spells otherwise
    shown = [repr(c) for c in close]
    if alias is not None and alias in current().specs.active:
        shown = [f"'{alias}' (TF.js's '{name}')"] + [repr(c) for c in close if c != alias][:2]
    hint = (f" Did you mean {', '.join(shown)}?" if shown else "") + op_hint
    return KernelSpecNotFoundError(
        f"No kernel spec named '{name}'.{hint} Declare it with "
        "tensorplug.extend.register_kernel_spec(KernelSpec(...)) (or from a plugin's "
        "tensorplug_kernel_specs hook) before registering kernels or gradients for it."
    )


def list_kernel_specs() -> list[KernelSpec]:
    """Every declared spec, sorted by name."""
    active = current().specs.active
    return [active[k] for k in sorted(active, key=str)]
