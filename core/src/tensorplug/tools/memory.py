"""Memory statistics: ``tp.memory()``, the tensors alive now and their bytes, per backend.

Nothing is counted on the hot path: ``memory()`` finds the live Tensors by walking the objects
Python's garbage collector tracks (as ``jax.live_arrays()`` lists JAX's), which takes some
10-50 ms per hundred thousand objects in the process (a process that imported jax holds about
that many). Call it between steps, not per op.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator
from typing import Any

from tensorplug.core.records import Record
from tensorplug.core.tensor import Tensor

__all__ = ["MemoryInfo", "memory", "live_tensors", "nbytes"]


class MemoryInfo(Record):
    """One backend's live tensors: how many Tensor objects, and the bytes of their distinct
    native arrays (shape x item size; tensors sharing one native array count it once)."""

    __slots__ = ("tensors", "bytes")
    tensors: int
    bytes: int

    def __init__(self, tensors: int, bytes: int) -> None:
        self._set(tensors=tensors, bytes=bytes)


def nbytes(t: Tensor) -> int:
    """The bytes of `t`'s values: its element count times its dtype's item size."""
    return math.prod(t._backend.shape_of(t._data)) * t._dtype.itemsize


def live_tensors() -> Iterator[Tensor]:
    """Every Tensor object (Variables included) alive in the process, found through the
    garbage collector; one whose constructor raised before it held a value is left out."""
    for obj in gc.get_objects():
        # (by the type, not isinstance: that reads obj.__class__, which some objects of other
        # libraries answer with a warning, e.g. torch's deprecated module attributes)
        if issubclass(type(obj), Tensor):
            try:
                obj._backend, obj._data  # noqa: B018  (both set: a complete tensor)
            except AttributeError:  # (kept alive by a traceback or a cycle, until collected)
                continue
            yield obj


def memory() -> dict[str, MemoryInfo]:
    """Per backend name, the Tensors alive now in the process and their bytes.

    A tensor kept alive only by a reference cycle counts until the garbage collector frees it
    (``gc.collect()`` first to leave those out). Costs a walk over the process's objects.
    """
    counts: dict[str, int] = {}
    sizes: dict[str, int] = {}
    seen: set[int] = set()
    keep: list[Any] = []  # (the natives seen, alive while their ids are compared)
    for t in live_tensors():
        name = t._backend.name
        counts[name] = counts.get(name, 0) + 1
        native = t._data
        if id(native) not in seen:
            seen.add(id(native))
            keep.append(native)
            sizes[name] = sizes.get(name, 0) + nbytes(t)
    return {name: MemoryInfo(counts[name], sizes.get(name, 0)) for name in sorted(counts)}
