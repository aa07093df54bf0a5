"""Debug modes, each a recorder on the engine's recorder list (so each costs nothing while off),
in the forward and the backward pass alike (gradients run kernels too):

- NaN and infinity checking: ``with tp.debug_nans():`` (or ``TENSORPLUG_DEBUG_NANS=1`` for the
  whole process) raises ``NonFiniteError`` at the first kernel whose floating output holds a
  NaN or an infinity, naming the kernel, its backend, who registered it and its inputs' shapes
  and dtypes.
- Output checking: ``with tp.debug_checks():`` (or ``TENSORPLUG_DEBUG_CHECKS=1``) holds every
  kernel call's outputs to the kernel's spec (``call_checks.check_outputs``: their number,
  native type, dtypes and shapes) and raises ``KernelOutputError`` at the first that differs.
  The dispatcher checks only the first call of each kernel and input dtypes otherwise, which
  catches a kernel that is always wrong, not one wrong for some shapes or only sometimes.

A compiled function (``tp.jit``) is checked while it is traced, where values exist (numpy's
plans), not when it replays: run the step without ``tp.jit`` to check every call.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from tensorplug.errors import NonFiniteError, TensorplugError
from tensorplug.kernels.call_checks import check_outputs
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["debug_nans", "NonFiniteCheck", "ENV_DEBUG_NANS", "debug_checks", "OutputCheck",
           "ENV_DEBUG_CHECKS"]

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
    from tensorplug.core.runtime import current
    from tensorplug.kernels.run import tensor_info
    from tensorplug.kernels.spec import describe

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


def debug_nans() -> contextlib.AbstractContextManager[None]:
    """Check every kernel output in this thread inside the block (see the module docstring)."""
    return _recording(NonFiniteCheck())


def debug_checks() -> contextlib.AbstractContextManager[None]:
    """Hold every kernel call in this thread inside the block to its kernel spec (see the module
    docstring): a KernelOutputError names the first kernel whose outputs differ."""
    return _recording(OutputCheck())


@contextlib.contextmanager
def _recording(check: NonFiniteCheck | OutputCheck) -> Iterator[None]:
    """`check` on this thread's recorders inside the block."""
    from tensorplug.core.context import push_recorder, remove_recorder

    push_recorder(check)
    try:
        yield
    finally:
        remove_recorder(check)


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
