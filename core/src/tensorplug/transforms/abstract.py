"""Abstract evaluation: run tensorplug code on shapes and dtypes alone, through the kernel specs.

``abstract_backend()`` swaps in a throwaway copy of the runtime holding one more backend,
made active in the calling thread. Its kernel for every kernel spec computes nothing: it asks
the spec's rule for the output shapes and dtypes, returns zero-filled numpy arrays of them,
and records its kernel name on the backend (``AbstractBackend.called``). So any code written
with ops (a gradient, a whole ``tp.grad``) can be run to learn which kernels it dispatches,
whichever kernels a real backend has. Code that depends on values sees zeros; a kernel whose
output shape depends on values raises ``AbstractEvaluationError``.

The runtime copy is in use in the whole process for the duration (as for
``plugins.manager.offered_by_unstarted_backends``): a tool's dry run, not for threads
running ops meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend, BackendConfig, register_backend
from tensorplug.core.context import backend_var, recorders_var
from tensorplug.core.runtime import current, use_runtime
from tensorplug.errors import TensorplugError
from tensorplug.kernels.kernel_spec import KernelSpec, TensorInfo, describe
from tensorplug.registry._slots import registering_as
from tensorplug.registry.kernel_config import KernelConfig
from tensorplug.registry.kernels import register_kernel

__all__ = ["ABSTRACT_BACKEND", "AbstractBackend", "AbstractEvaluationError", "abstract_backend"]

#: The abstract backend's name (and its registrant's), in the runtime copy only.
ABSTRACT_BACKEND = "tensorplug-abstract"


class AbstractEvaluationError(TensorplugError, ValueError):
    """Code could not be run on shapes and dtypes alone (an output shape depends on values)."""


class AbstractBackend(Backend):
    """Native arrays are numpy arrays; kernels give zeros of the spec's output shapes and dtypes
    and add their names to ``called``."""

    def __init__(self) -> None:
        self.called: set[str] = set()

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def to_numpy(self, native: Any) -> np.ndarray:
        return np.asarray(native)


def _placeholder(spec: KernelSpec, info: TensorInfo) -> np.ndarray:
    if any(d < 0 for d in info.shape):
        raise AbstractEvaluationError(
            f"kernel '{spec.name}' gives an output of shape {describe(info)}, whose size depends "
            "on the input values, so code using it cannot be run on shapes and dtypes alone.")
    return np.zeros(info.shape, info.dtype.numpy)


def _kernel(spec: KernelSpec) -> Any:
    def kernel(inputs: tuple[np.ndarray, ...], attrs: dict[str, Any], backend: AbstractBackend) -> Any:
        backend.called.add(spec.name)
        infos = [TensorInfo(tuple(a.shape), backend.dtype_of(a)) for a in inputs]
        outputs = [_placeholder(spec, o) for o in spec.check(infos, attrs)]
        return outputs[0] if len(spec.outputs) == 1 else tuple(outputs)
    kernel.__name__ = f"abstract_{spec.name}"
    return kernel


@contextlib.contextmanager
def abstract_backend() -> Iterator[AbstractBackend]:
    """Inside the block, this thread's active backend is an AbstractBackend with a kernel for
    every kernel spec, in a copy of the runtime (no recorder active: an outer tape or counter
    does not see the calls); everything is as before after it."""
    with use_runtime(current().copy()) as runtime, registering_as(ABSTRACT_BACKEND):
        register_backend(BackendConfig(ABSTRACT_BACKEND, AbstractBackend, priority=-(2 ** 31)))
        for spec in list(runtime.specs.active.values()):
            register_kernel(KernelConfig(spec.name, ABSTRACT_BACKEND, _kernel(spec)))
        backend = AbstractBackend()
        backend.name = ABSTRACT_BACKEND
        runtime.instances[ABSTRACT_BACKEND] = backend
        backend_token = backend_var.set(backend)
        recorders_token = recorders_var.set(())
        try:
            yield backend
        finally:
            recorders_var.reset(recorders_token)
            backend_var.reset(backend_token)
