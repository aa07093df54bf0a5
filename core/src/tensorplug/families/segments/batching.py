"""Batching rules of the segment reductions: UnsortedSegmentSum/Max/Min and
SparseSegmentSum/Mean, and the counts Bincount and DenseBincount (each example's values a row of
DenseBincount's 2-d input).

Shared segment ids (and, for the sparse ones, shared indices) leave the axes after the rows
alone, so the batch axis goes there and every segment carries it. Batched ones become ids
into one reduction over the whole batch, example i's segment s numbered i * num_segments + s
(``flat_indices``): an id out of range stays out of range and is dropped, as the kernel drops
it per example, and the sparse kernels' row indices into batched data likewise (an index out
of range refused as the loop refuses it). Without num_segments, the sparse kernels' number of
segments is the last id + 1: read from the ids' values when every example has the same one."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_indices import flat_indices, loop_errors
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    all_batched,
    batch_size,
    batching_rule,
    reshaped,
    spread,
    to_front,
)
from tensorplug.families.scatter_nd.ops import host_values
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.batching import BatchConfig
from tensorplug.registry.core_entries import declare_batching_rule


def _unsorted(dispatcher: Dispatcher) -> Any:
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
        (data, ids), (ad, ai) = inputs, axes
        size, num = batch_size(inputs, axes), attrs["num_segments"]
        if ai is None:  # shared ids: data's batch axis right after the axes of the ids
            return dispatcher((spread(data, ad, size, ids.ndim), ids), attrs), 1
        data = spread(data, ad, size, 0)
        out = dispatcher((data, flat_indices(to_front(ids, ai), num, negative=False)),
                         {"num_segments": size * num})
        return reshaped(out, (size, num) + out.shape[1:]), 0
    return rule


for _name in ("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin"):
    declare_batching_rule(BatchConfig(_name, _unsorted(dispatcher_of(_name))))


def _sparse(name: str) -> Any:
    dispatcher = dispatcher_of(name)

    @loop_errors(name)
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> Any:
        """Without num_segments, batched ids (or indices) need the ids' values: see
        `_segment_count`."""
        (data, indices, ids), (ad, ax, ai) = inputs, axes
        size, num = batch_size(inputs, axes), attrs["num_segments"]
        if ax is None and ai is None:  # batched data only: its batch axis second, kept by each row
            return dispatcher((spread(data, ad, size, 1), indices, ids), attrs), 1
        if num is None:
            num = _segment_count(ids, ai)
            if num is None:
                return NotImplemented
        indices, ids = spread(indices, ax, size, 0), spread(ids, ai, size, 0)  # (B, m) each
        m = indices.shape[1]
        if ad is not None:  # the batch and the rows of data flattened together
            data = to_front(data, ad)
            rows = data.shape[1]
            data = reshaped(data, (size * rows,) + data.shape[2:])
            indices = flat_indices(indices, rows, negative=True)
        flat_ids = flat_indices(ids, num, negative=False)
        out = dispatcher((data, reshaped(indices, (size * m,)), reshaped(flat_ids, (size * m,))),
                         {"num_segments": size * num})
        return reshaped(out, (size, num) + out.shape[1:]), 0
    return rule


def _segment_count(ids: Tensor, axis: int | None) -> int | None:
    """The number of segments of every example without num_segments: its last id + 1, read
    from the values; None (the loop runs, and refuses outputs of different lengths as it
    does) when it differs between examples, when there are no ids, or inside tp.jit (no
    values)."""
    values = host_values(ids)
    rows = 0 if axis is None else 1 - axis  # (ids are 1-d per example)
    if values is None or values.shape[rows] == 0:
        return None
    lasts = np.take(values, -1, axis=rows)
    if lasts.ndim and (lasts != lasts[0]).any():
        return None
    return int(lasts.flat[0]) + 1


for _name in ("SparseSegmentSum", "SparseSegmentMean"):
    declare_batching_rule(BatchConfig(_name, _sparse(_name)))


# -- Bincount, DenseBincount ---------------------------------------------------------------
_DENSE_BINCOUNT = dispatcher_of("DenseBincount")


def _counts(inputs: Inputs, axes: Axes, size: int, binary: bool) -> tuple[Tensor, int]:
    """The counts of each row of every example's x (1-d: one row), by DenseBincount's rows; empty
    weights (count each value once) stay empty."""
    x, weights = all_batched(inputs, axes)
    lead = x.shape[:-1]
    rows = (math.prod(lead), x.shape[-1])
    weights = reshaped(weights, rows if weights.shape == x.shape else (0,))
    out = _DENSE_BINCOUNT((reshaped(x, rows), weights), {"size": size, "binary_output": binary})
    return reshaped(out, lead + (size,)), 0


@batching_rule("Bincount")
def _bincount(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    return _counts(inputs, axes, attrs["size"], False)


@batching_rule("DenseBincount")
def _dense_bincount(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    return _counts(inputs, axes, attrs["size"], attrs["binary_output"])


