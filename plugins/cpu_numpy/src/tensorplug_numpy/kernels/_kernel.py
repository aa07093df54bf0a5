"""``Kernel``: a numpy kernel function and what the plugin says of it beyond the function."""

from __future__ import annotations

from dataclasses import dataclass

from tensorplug.extend import DirectCall, KernelFunc


@dataclass(frozen=True)
class Kernel:
    """A kernel function of this backend, the direct calls it offers (``DirectCall``), and
    whether it sets numpy's floating-point error state itself (``handles_warnings``: else the
    plugin runs it with the warnings off, see ``_quiet``). Family tables give a plain kernel
    function where all three would be the defaults."""

    func: KernelFunc
    direct: DirectCall | None = None
    handles_warnings: bool = False
