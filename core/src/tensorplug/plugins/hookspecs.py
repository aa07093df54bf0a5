"""The hooks a tensorplug plugin may implement (all optional). Each receives a ``register``
callable that records the plugin as the source of what it registers; ``register`` takes the
config and the keyword arguments ``override=False`` and ``priority`` (default 0; for a backend,
its BackendConfig's priority)."""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("tensorplug")
hookimpl = pluggy.HookimplMarker("tensorplug")


@hookspec
def tensorplug_backends(register: Any) -> None:
    """Register the backends this plugin provides: ``register(BackendConfig(...))``."""


@hookspec
def tensorplug_kernel_specs(register: Any) -> None:
    """Declare new kernel names: ``register(KernelSpec(...))``."""


@hookspec
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    """Register kernels for `backend_name`, called when that backend starts:
    ``register(KernelConfig(...))``."""


@hookspec
def tensorplug_gradients(register: Any) -> None:
    """Register gradients: ``register(GradConfig(...), override=True)`` replaces the core's."""


@hookspec
def tensorplug_jvps(register: Any) -> None:
    """Register forward-mode rules: ``register(JvpConfig(...))``; ``override=True`` replaces the
    core's (a kernel without one has its gradient transposed)."""


@hookspec
def tensorplug_batching_rules(register: Any) -> None:
    """Register tp.vmap's batching rules: ``register(BatchConfig(...))``; ``override=True``
    replaces the core's (a kernel without one is looped over the batch)."""


@hookspec
def tensorplug_onnx_lowerings(register: Any) -> None:
    """Register how kernels are written as ONNX (``tp.export.onnx``): ``register(OnnxLowering(...))``;
    ``override=True`` replaces the core's."""


@hookspec
def tensorplug_ops(register: Any) -> None:
    """Add public ops: ``register(OpConfig(name, func))`` makes each ``tp.ops.<name>``."""


@hookspec
def tensorplug_references(register: Any) -> None:
    """Give the testing kit reference values for this plugin's kernels:
    ``register(tensorplug.testing.Reference(...))``; asked only when the kit needs one."""
