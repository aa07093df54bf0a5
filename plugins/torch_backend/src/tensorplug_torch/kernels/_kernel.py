"""``Kernel``: a torch kernel function with the direct call it offers (see ``DirectCall``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tensorplug.dtypes import DType
from tensorplug.extend import DirectCall, KernelFunc


@dataclass(frozen=True)
class Kernel:
    """A kernel function of this backend, its direct call if any (a function of the native
    inputs alone that the dispatcher calls in its place), and the input dtypes it serves where
    fewer than the backend holds (None: all). Family tables give a plain kernel function where
    both would be the defaults."""

    func: KernelFunc
    direct: DirectCall | None = None
    dtypes: Iterable[DType] | None = None
