"""The recorders of the debug modes (``tensorplug.tools.debug``): ``NonFiniteCheck`` raises
``NonFiniteError`` at the first kernel output holding a NaN or an infinity, ``OutputCheck``
holds every kernel call's outputs to the kernel's spec. ``checks_from_environment`` gives the
ones every context starts with (``core/context.py``), from TENSORPLUG_DEBUG_NANS and
TENSORPLUG_DEBUG_CHECKS."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorplug.core.runtime import current
from tensorplug.errors import NonFiniteError, TensorplugError
from tensorplug.kernels.call_checks import check_outputs
from tensorplug.kernels.kernel_spec import describe, tensor_info
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["ENV_DEBUG_CHECKS", "ENV_DEBUG_NANS", "NonFiniteCheck", "OutputCheck", "checks_from_environment"]

ENV_DEBUG_NANS = "TENSORPLUG_DEBUG_NANS"
ENV_DEBUG_CHECKS = "TENSORPLUG_DEBUG_CHECKS"


class NonFiniteCheck:
    """A recorder that raises NonFiniteError for a kernel output holding NaN or infinity."""

    def record(self, name: str, inputs: Any, attrs: Mapping[str, Any], outputs: tuple[Any, ...],
               custom: Any = None, start: int = 0, direct: Any = None) -> None:
        if custom is not None:  # (a custom gradient's link: its values come from kernels)
            return
        for position, out in enumerate(outputs):
            if not out._dtype.is_inexact:
                continue
            try:
                values = np.asarray(out._backend.to_numpy(out._data))
            except (TensorplugError, TypeError):  # traced (jax.jit): no values to look at
                return
            if not np.isfinite(values).all():
                raise _error(name, inputs, outputs, position, values)


def _error(name: str, inputs: Any, outputs: tuple[Any, ...], position: int,
           values: np.ndarray) -> NonFiniteError:
    out = outputs[position]
    backend = out._backend.name
    reg = current().kernels.registration((name, backend))
    spec = current().specs.active.get(name)
    out_name = spec.outputs[position] if spec is not None and position < len(spec.outputs) else str(position)
    what = "NaN" if np.isnan(values).any() else "infinity"
    shown = ", ".join(describe(tensor_info(t)) for t in inputs) or "no inputs"
    return NonFiniteError(
        f"Kernel '{name}' on backend '{backend}' (registered by '{reg.source if reg else 'unknown'}') "
        f"gave {what} in its output '{out_name}' ({describe(tensor_info(out))}) from inputs {shown}, "
        "while NaN checking is on. The traceback shows the op (or gradient) that called it: look at "
        "its inputs' values."
    )


class OutputCheck:
    """A recorder that holds every kernel call's outputs to the kernel's spec (KernelOutputError)."""

    def record(self, name: str, inputs: Any, attrs: Mapping[str, Any], outputs: tuple[Any, ...],
               custom: Any = None, start: int = 0, direct: Any = None) -> None:
        if custom is not None or not outputs:  # (a custom gradient's link: no kernel call)
            return
        single = len(get_kernel_spec(name).outputs) == 1  # (else a tuple, even of one: SplitV's)
        returned = outputs[0]._data if single else tuple(t._data for t in outputs)
        check_outputs(name, outputs[0]._backend, inputs, attrs, returned, direct=direct is not None)


def checks_from_environment() -> tuple[NonFiniteCheck | OutputCheck, ...]:
    """The recorders every context starts with: a NaN check when TENSORPLUG_DEBUG_NANS is set,
    an output check when TENSORPLUG_DEBUG_CHECKS is."""
    checks: list[NonFiniteCheck | OutputCheck] = []
    if _flag(ENV_DEBUG_NANS):
        checks.append(NonFiniteCheck())
    if _flag(ENV_DEBUG_CHECKS):
        checks.append(OutputCheck())
    return tuple(checks)


def _flag(variable: str) -> bool:
    return os.environ.get(variable, "").lower() not in ("", "0", "false", "no")
