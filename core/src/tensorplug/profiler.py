"""Which kernels ran, on which backend, registered by whom: ``with count_kernels() as calls:``.

The counter rides on the engine's recorder list (the one tapes use), so it costs nothing when
no recorder is active.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._state import push_recorder, remove_recorder
from .runtime import current

__all__ = ["KernelCalls", "count_kernels"]


@dataclass
class KernelCalls:
    """Kernel calls counted by (kernel name, backend name)."""

    counts: Counter[tuple[str, str]]

    def rows(self) -> list[tuple[str, str, str, int]]:
        """(kernel, backend, registered by, calls), most called first."""
        out = []
        for (kernel, backend), n in self.counts.most_common():
            reg = current().kernels.registration((kernel, backend))
            out.append((kernel, backend, reg.source if reg else "?", n))
        return out

    def total(self) -> int:
        return sum(self.counts.values())


class _Counter:
    """A recorder: the engine calls record() for every kernel run while it is active."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    def record(self, name: str, inputs: Any, attrs: Mapping[str, Any], outputs: tuple[Any, ...],
               custom: Any = None) -> None:
        if custom is None and name in current().specs.active and outputs:
            self.counts[(name, outputs[0]._backend.name)] += 1


@contextlib.contextmanager
def count_kernels() -> Iterator[KernelCalls]:
    """Count the kernels run in this thread inside the block."""
    counter = _Counter()
    push_recorder(counter)
    try:
        yield KernelCalls(counter.counts)
    finally:
        remove_recorder(counter)
