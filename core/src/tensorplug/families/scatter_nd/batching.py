"""Batching rules of the n-d gather/scatter kernels (GatherNd, ScatterNd, TensorScatterUpdate)
and SparseToDense, whose index rows address the leading axes of a shape.

Shared index rows leave the axes after the addressed ones alone, so the batch axis goes there
and the kernel carries it like any other trailing axis. Batched rows each get their example's
number in front (``batch_column``), addressing a shape with the batch axis first: an index out
of range stays out of range, and the kernel's refusal is raised as the loop raises it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_indices import batch_column, loop_errors
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    batch_size,
    batching_rule,
    broadcast,
    reshaped,
    spread,
    to_front,
)
from tensorplug.kernels.dispatcher import dispatcher_of

_GATHER_ND, _SCATTER_ND = dispatcher_of("GatherNd"), dispatcher_of("ScatterNd")
_TENSOR_SCATTER_UPDATE = dispatcher_of("TensorScatterUpdate")
_SPARSE_TO_DENSE = dispatcher_of("SparseToDense")


@batching_rule("GatherNd")
@loop_errors("GatherNd")
def _gather_nd(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    (params, indices), (ap, ai) = inputs, axes
    if ai is None:  # shared rows: params' batch axis after the k addressed axes, kept in each slice
        params = spread(params, ap, batch_size(inputs, axes), indices.shape[-1])
        return _GATHER_ND((params, indices), {}), indices.ndim - 1
    if ap is None:  # shared params: the batch axis stays among the rows' leading axes
        if ai < indices.ndim - 1:
            return _GATHER_ND((params, indices), {}), ai
        return _GATHER_ND((params, to_front(indices, ai)), {}), 0
    return _GATHER_ND((to_front(params, ap), batch_column(to_front(indices, ai))), {}), 0


@batching_rule("ScatterNd")
@loop_errors("ScatterNd")
def _scatter_nd(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    (indices, updates), (ai, au) = inputs, axes
    shape = tuple(attrs["shape"])
    size = batch_size(inputs, axes)
    if ai is None:  # batched updates: their batch axis after the rows' axes, the output's after k
        k = indices.shape[-1]
        updates = spread(updates, au, size, indices.ndim - 1)
        return _SCATTER_ND((indices, updates), {"shape": shape[:k] + (size,) + shape[k:]}), k
    rows = batch_column(to_front(indices, ai))
    return _SCATTER_ND((rows, spread(updates, au, size, 0)), {"shape": (size,) + shape}), 0


@batching_rule("TensorScatterUpdate")
@loop_errors("TensorScatterUpdate")
def _tensor_scatter_update(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    (tensor, indices, updates), (at, ai, au) = inputs, axes
    size = batch_size(inputs, axes)
    if ai is None:  # shared rows: the batch axis after the k addressed axes (after the rows' in updates)
        k = indices.shape[-1]
        args = (spread(tensor, at, size, k), indices, spread(updates, au, size, indices.ndim - 1))
        return _TENSOR_SCATTER_UPDATE(args, {}), k
    rows = batch_column(to_front(indices, ai))
    return _TENSOR_SCATTER_UPDATE((spread(tensor, at, size, 0), rows, spread(updates, au, size, 0)), {}), 0


@batching_rule("SparseToDense")
@loop_errors("SparseToDense")
def _sparse_to_dense(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """Every example's rows (each given its example's number) into one output with the batch
    axis first; a batched default value fills it first, and TensorScatterUpdate writes the
    values (SparseToDense takes one default)."""
    (indices, values, default), (ai, av, ad) = inputs, axes
    shape = tuple(attrs["output_shape"])
    size = batch_size(inputs, axes)
    indices = spread(indices, ai, size, 0)  # (B,), (B, n) or (B, n, rank)
    n = indices.shape[1] if indices.ndim > 1 else 1
    rows = reshaped(batch_column(reshaped(indices, (size, n, len(shape)))), (size * n, len(shape) + 1))
    if av is not None or values.ndim or ad is not None:  # (B * n,) values, one per row
        values = spread(values, av, size, 0)
        if values.ndim == 1:  # one value for every row of its example
            values = broadcast(reshaped(values, (size, 1)), (size, n))
        values = reshaped(values, (size * n,))
    if ad is None:
        return _SPARSE_TO_DENSE((rows, values, default), {"output_shape": (size,) + shape}), 0
    filled = broadcast(reshaped(to_front(default, ad), (size,) + (1,) * len(shape)), (size,) + shape)
    return _TENSOR_SCATTER_UPDATE((filled, rows, values), {}), 0
