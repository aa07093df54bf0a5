"""An optimizer's slots packed for tp.jit: one flat buffer per dtype instead of one array per
slot. A compiled call costs per array passed in and per array returned (~2 us each on jax's
CPU, host time in the calling thread), and Adam keeps two slots per variable: packed, the
demo's step passes 1 array of slots instead of 8 each way (its epoch ~15% shorter). Slots are
packed only where the backend can join them without moving data (``Backend.joinable``: not
when their parameters are sharded over several devices); otherwise they go one array each.

Inside the compiled step the buffers are cut into the slots (slices, which the compiler folds
into their uses) and the new slots joined into new buffers; between calls the buffers stay on
the device, and are cut into tensors only when something reads the slots (``unpacked``).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np

from ..backend import Backend, backend_scope
from ..engine import wrap
from ..ops.manipulation import concat, reshape
from ..tensor import Tensor

__all__ = ["Layout", "layout_of", "loose_layout", "pack", "unpack", "unpacked", "zero_buffers"]

#: (the buffers' dtypes, per slot (buffer, start, stop, shape)); or, for slots passed one
#: array each (not packed), (the slots' dtypes, None). Hashable: part of the token that keys a
#: compiled step.
Layout = tuple[tuple[Any, ...], tuple[tuple[int, int, int, tuple[int, ...]], ...] | None]


def layout_of(tensors: Sequence[Tensor]) -> Layout:
    """Where each of `tensors` lies when packed: in the buffer of its dtype, in order."""
    dtypes: list[Any] = []
    ends: list[int] = []
    where = []
    for t in tensors:
        shape = tuple(t.shape)
        if t._dtype in dtypes:
            group = dtypes.index(t._dtype)
        else:
            group = len(dtypes)
            dtypes.append(t._dtype)
            ends.append(0)
        start = ends[group]
        ends[group] = start + prod(shape)
        where.append((group, start, ends[group], shape))
    return tuple(dtypes), tuple(where)


def loose_layout(tensors: Sequence[Tensor]) -> Layout:
    """The layout of `tensors` passed one array each."""
    return tuple(t._dtype for t in tensors), None


def pack(tensors: Sequence[Tensor], layout: Layout) -> list[Tensor]:
    """`tensors` flattened and joined, one buffer per dtype of `layout` (ops: traced in a step)."""
    assert layout[1] is not None
    groups: list[list[Tensor]] = [[] for _ in layout[0]]
    for t, (group, *_) in zip(tensors, layout[1]):
        groups[group].append(t)
    return [concat(ts, axis=None) for ts in groups]


def unpack(buffers: Sequence[Tensor], layout: Layout) -> list[Tensor]:
    """The tensors `pack` joined, cut out of `buffers` again (ops)."""
    assert layout[1] is not None
    return [reshape(buffers[group][start:stop], shape) for group, start, stop, shape in layout[1]]


def unpacked(natives: Sequence[Any], layout: Layout, backend: Backend) -> list[Tensor]:
    """`unpack` of buffers (natives of `backend`, or numpy arrays), run eagerly on `backend` (a
    read of the slots)."""
    if not natives:
        return []
    buffers = [wrap(backend.from_numpy(n) if isinstance(n, np.ndarray) else n, backend, dtype)
               for n, dtype in zip(natives, layout[0])]
    if layout[1] is None:  # one array per tensor
        return buffers
    with backend_scope(backend.name):
        return unpack(buffers, layout)


def zero_buffers(layout: Layout) -> list[np.ndarray]:
    """Buffers of `layout` holding zeros (numpy arrays: the compiled step takes them as they are)."""
    assert layout[1] is not None
    sizes = [0] * len(layout[0])
    for group, _, stop, _ in layout[1]:
        sizes[group] = max(sizes[group], stop)
    return [np.zeros(size, dtype.numpy) for size, dtype in zip(sizes, layout[0])]
