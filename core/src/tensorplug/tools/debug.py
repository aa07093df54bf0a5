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
from collections.abc import Iterator

from tensorplug.core.context import push_recorder, remove_recorder
from tensorplug.tools.check_recorders import NonFiniteCheck, OutputCheck

__all__ = ["debug_checks", "debug_nans"]


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
    push_recorder(check)
    try:
        yield
    finally:
        remove_recorder(check)
