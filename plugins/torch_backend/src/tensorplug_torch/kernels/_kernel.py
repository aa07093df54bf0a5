"""``Kernel``: a torch kernel function with the direct call it offers (see ``DirectCall``)."""

from __future__ import annotations

from dataclasses import dataclass

from tensorplug.extend import DirectCall, KernelFunc


@dataclass(frozen=True)
class Kernel:
    """A kernel function of this backend and its direct call, if any: a function of the native
    inputs alone that the dispatcher calls in its place. Family tables give a plain kernel
    function where there is no direct call."""

    func: KernelFunc
    direct: DirectCall | None = None
