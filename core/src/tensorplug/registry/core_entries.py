"""The core's own entries as plain data: the kernel specs, gradients, JVP rules and batching
rules that the family folders' modules (``families/<family>/``: ``spec.py``, ``gradients.py``,
``jvps.py``, ``batching.py``) declare when imported. Declaring registers nothing:
``tensorplug.register_core(runtime)`` puts them into a runtime, as the core's. They are checked
against their specs by the test suite (tests/test_runtime_construction.py), not one by one at
import."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeVar

from tensorplug.errors import RegistrationError

if TYPE_CHECKING:
    from tensorplug.kernels.kernel_spec import KernelSpec
    from tensorplug.registry.batching import BatchConfig
    from tensorplug.registry.gradients import GradConfig
    from tensorplug.registry.jvps import JvpConfig
    from tensorplug.registry.onnx_lowerings import OnnxLowering

__all__ = ["CORE_ENTRIES", "declare_spec", "declare_gradient", "declare_jvp", "declare_batching_rule",
           "declare_onnx_lowering"]

C = TypeVar("C")

#: by the runtime's table they go to ('specs', 'gradients', 'jvps', 'batching', 'onnx_lowerings'):
#: key -> config
CORE_ENTRIES: dict[str, dict[Hashable, Any]] = {"specs": {}, "gradients": {}, "jvps": {}, "batching": {},
                                                "onnx_lowerings": {}}


def _declare(table: str, key: Hashable, config: C) -> C:
    entries = CORE_ENTRIES[table]
    taken = entries.get(key)
    if taken is not None and taken != config:
        raise RegistrationError(f"The core declares two different {table} entries for {key!r}: "
                                f"{taken!r} and {config!r}. Keep one of them.")
    entries[key] = config
    return config


def declare_spec(spec: KernelSpec) -> KernelSpec:
    """Declare a kernel spec of the core; returns it (a module constant)."""
    return _declare("specs", spec.name, spec)


def declare_gradient(config: GradConfig) -> GradConfig:
    """Declare the core's default gradient of ``config.kernel_name``."""
    return _declare("gradients", config.kernel_name, config)


def declare_jvp(config: JvpConfig) -> JvpConfig:
    """Declare the core's JVP rule of ``config.kernel_name``."""
    return _declare("jvps", config.kernel_name, config)


def declare_batching_rule(config: BatchConfig) -> BatchConfig:
    """Declare the core's batching rule of ``config.kernel_name``."""
    return _declare("batching", config.kernel_name, config)


def declare_onnx_lowering(config: OnnxLowering) -> OnnxLowering:
    """Declare the core's ONNX lowering of ``config.kernel_name``."""
    return _declare("onnx_lowerings", config.kernel_name, config)
