"""Segment kernels: UnsortedSegmentSum, UnsortedSegmentMax, UnsortedSegmentMin (ids outside
``[0, num_segments)`` dropped; empty segments get the reduction's identity, as jax.ops gives),
Bincount and DenseBincount (values outside ``[0, size)`` dropped), with torch's ``index_add_``
and ``scatter_reduce_`` into a tensor the kernel made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]


def _rows(data: torch.Tensor, ids: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """data as rows (one per id) and the ids, both only where the id is in [0, n)."""
    flat = ids.reshape(-1)
    keep = (flat >= 0) & (flat < n)
    return data.reshape(flat.numel(), *data.shape[ids.ndim:])[keep], flat[keep].long()


def _extreme(dtype: torch.dtype, largest: bool) -> float | int:
    if dtype.is_floating_point:
        return float("inf") if largest else float("-inf")
    info = torch.iinfo(dtype)
    return info.max if largest else info.min


def _segment(reduce: str | None) -> Callable[..., torch.Tensor]:
    """The kernel summing (None) or reducing with ``scatter_reduce_``'s 'amax' or 'amin'; an
    empty segment holds 0, the dtype's smallest (amax) or largest (amin) value."""

    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
        data, ids = inputs
        n = attrs["num_segments"]
        rows, at = _rows(data, ids, n)
        shape = (n, *data.shape[ids.ndim:])
        if reduce is None:
            return data.new_zeros(shape).index_add_(0, at, rows)
        out = data.new_full(shape, _extreme(data.dtype, reduce == "amin"))
        index = at.reshape(-1, *(1,) * (rows.ndim - 1)).expand(rows.shape)
        return out.scatter_reduce_(0, index, rows, reduce)

    kernel.__name__ = f"unsorted_segment_{reduce or 'sum'}"
    return kernel


def _counts(x: torch.Tensor, weights: torch.Tensor, size: int, binary: bool) -> torch.Tensor:
    """Counts of each row of a 2-d x (weighted where weights are not empty), (rows, size)."""
    flat = x.reshape(-1).long()
    keep = (flat >= 0) & (flat < size)
    slots = (torch.arange(x.shape[0], device=x.device).repeat_interleave(x.shape[1]) * size + flat)[keep]
    out = weights.new_zeros(x.shape[0] * size)
    if binary:
        out[slots] = 1
    else:
        w = weights.reshape(-1)[keep] if weights.numel() else weights.new_ones(slots.shape)
        out.index_add_(0, slots, w)
    return out.reshape(x.shape[0], size)


def bincount(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, weights = inputs
    return _counts(x.reshape(1, -1), weights, attrs["size"], False)[0]


def dense_bincount(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, weights = inputs
    out = _counts(x.reshape(1, -1) if x.ndim == 1 else x, weights, attrs["size"], attrs["binary_output"])
    return out[0] if x.ndim == 1 else out


KERNELS: dict[str, Callable[..., Any]] = {
    "UnsortedSegmentSum": _segment(None),
    "UnsortedSegmentMax": _segment("amax"),
    "UnsortedSegmentMin": _segment("amin"),
    "Bincount": bincount,
    "DenseBincount": dense_bincount,
}
