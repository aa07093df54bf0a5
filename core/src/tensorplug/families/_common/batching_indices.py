"""Helpers of the rules of kernels that take indices (Gather, ScatterAdd, the n-d and segment
kernels): per-example indices made indices into the batch and the indexed axis flattened
together, or given a column of batch indices; and errors raised as the loop raises them.

An index out of range must never land in a neighbouring example: `flat_indices` sends it out
of range of the flattened axis too (so the kernel refuses, fills or drops it as it would
refuse, fill or drop it per example), and `loop_errors` makes the kernel's refusal the loop's
own error, naming the example's index and shape rather than the flattened ones.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import int64
from tensorplug.errors import IndexOutOfRangeError
from tensorplug.families._common.batching_util import Axes, Inputs, batch_size, broadcast, reshaped, select
from tensorplug.families._common.convert import astype
from tensorplug.families.creation.ops import arange
from tensorplug.families.elementwise.ops import logical_and, where
from tensorplug.families.manipulation.ops import concat
from tensorplug.kernels.dispatcher import dispatcher_of
from tensorplug.registry.batching import BatchFunc

__all__ = ["flat_indices", "batch_column", "loop_errors"]


def flat_indices(indices: Tensor, n: int, *, negative: bool) -> Tensor:
    """Batched int indices (batch axis first) into an axis of size `n`, as int64 indices into
    the batch and that axis flattened together: example i's index j -> i * n + j. With
    `negative`, j in [-n, 0) counts from the end (Gather, ScatterAdd); without, the valid
    indices are [0, n) (the n-d and segment kernels). An index outside them becomes
    ``size * n``, outside the flattened axis whichever rule it has."""
    size = indices.shape[0]
    idx = astype(indices, int64)
    inside = logical_and(idx >= (-n if negative else 0), idx < n)
    if negative:
        idx = where(idx < 0, idx + n, idx)
    offsets = reshaped(arange(size, dtype=int64) * n, (size,) + (1,) * (idx.ndim - 1))
    return where(inside, idx + offsets, size * n)


def batch_column(indices: Tensor) -> Tensor:
    """Batched n-d indices (batch axis first, rows along the last axis) with each row given
    its example's number in front: int64 rows into a tensor whose first axis is the batch.
    The example's own indices are kept as they are, so one out of range stays out of range."""
    idx = astype(indices, int64)
    size = idx.shape[0]
    column = reshaped(arange(size, dtype=int64), (size,) + (1,) * (idx.ndim - 1))
    return concat([broadcast(column, idx.shape[:-1] + (1,)), idx], axis=-1)


def loop_errors(kernel_name: str) -> Any:
    """Decorator of a batching rule: an IndexOutOfRangeError it raises (the kernel on the whole
    batch refusing an index) is raised again by the kernel run on each example in turn, as the
    loop over the batch runs it, so that the error names the example's index and shape."""
    def wrap(rule: BatchFunc) -> BatchFunc:
        @functools.wraps(rule)
        def checked(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> Any:
            try:
                return rule(inputs, axes, attrs)
            except IndexOutOfRangeError as exc:
                kernel = dispatcher_of(kernel_name)
                for i in range(batch_size(inputs, axes)):
                    kernel([x if a is None else select(x, a, i) for x, a in zip(inputs, axes)], attrs)
                raise exc
        return checked
    return wrap
