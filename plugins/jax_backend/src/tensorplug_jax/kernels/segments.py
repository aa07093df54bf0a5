"""Segment kernels: UnsortedSegmentSum, UnsortedSegmentMax, UnsortedSegmentMin
(``jax.ops.segment_*``: ids outside ``[0, num_segments)`` dropped, empty segments hold the
reduction's identity), Bincount and DenseBincount (a scatter-add; values outside
``[0, size)`` dropped). ``num_segments`` and ``size`` are static."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tensorplug_jax.kernels._jit import with_attrs


def _segment(reduce: Callable[..., Any]) -> Callable[..., Any]:
    def segment(data: Any, segment_ids: Any, num_segments: int) -> Any:
        rows = data.reshape((segment_ids.size,) + data.shape[segment_ids.ndim:])
        return reduce(rows, segment_ids.reshape(-1), num_segments=num_segments, mode="drop")

    segment.__name__ = reduce.__name__
    return with_attrs(segment, static=("num_segments",))


def _counts(x: Any, weights: Any, size: int, binary: bool) -> Any:
    """Counts of each row of a 2-d x (weighted where weights are not empty)."""
    keep = (x >= 0) & (x < size)
    w = weights if weights.size else jnp.ones(x.shape, weights.dtype)
    w = jnp.where(keep, 1 if binary else w, 0).astype(weights.dtype)
    rows = jnp.broadcast_to(jnp.arange(x.shape[0])[:, None], x.shape)
    at = (rows, jnp.where(keep, x, 0))
    out = jnp.zeros((x.shape[0], size), weights.dtype)
    return out.at[at].max(w, mode="drop") if binary else out.at[at].add(w, mode="drop")


def _bincount(x: Any, weights: Any, size: int) -> Any:
    return _counts(x[None], weights[None] if weights.size else weights, size, False)[0]


def _dense_bincount(x: Any, weights: Any, size: int, binary_output: bool) -> Any:
    if x.ndim == 2:
        return _counts(x, weights, size, binary_output)
    return _counts(x[None], weights[None] if weights.size else weights, size, binary_output)[0]


KERNELS: dict[str, Callable[..., Any]] = {
    "UnsortedSegmentSum": _segment(jax.ops.segment_sum),
    "UnsortedSegmentMax": _segment(jax.ops.segment_max),
    "UnsortedSegmentMin": _segment(jax.ops.segment_min),
    "Bincount": with_attrs(_bincount, static=("size",)),
    "DenseBincount": with_attrs(_dense_bincount, static=("size", "binary_output")),
}
