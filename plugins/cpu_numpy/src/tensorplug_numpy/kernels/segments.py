"""Segment kernels: UnsortedSegmentSum, UnsortedSegmentMax, UnsortedSegmentMin (ids outside
``[0, num_segments)`` dropped; empty segments get the reduction's identity, as jax.ops gives),
Bincount and DenseBincount (values outside ``[0, size)`` dropped), with ``ufunc.at``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_INT64 = np.dtype(np.int64)


def _rows(data: np.ndarray, ids: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """data as rows (one per id) and the ids, both only where the id is in [0, n)."""
    flat = ids.reshape(-1)
    keep = (flat >= 0) & (flat < n)
    return data.reshape((flat.size,) + data.shape[ids.ndim:])[keep], flat[keep].astype(_INT64)


def _identity(dtype: np.dtype, largest: bool) -> Any:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    return np.inf if largest else -np.inf


def _segment(ufunc: np.ufunc, empty_largest: bool | None) -> Callable[..., Any]:
    """The kernel reducing with `ufunc`; an empty segment holds 0 (None) or the dtype's largest
    (True) or smallest (False) value."""
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        data, ids = inputs
        n = attrs["num_segments"]
        rows, at = _rows(data, ids, n)
        fill = 0 if empty_largest is None else _identity(data.dtype, empty_largest)
        out = np.full((n,) + data.shape[ids.ndim:], fill, dtype=data.dtype)
        ufunc.at(out, at, rows)
        return out

    kernel.__name__ = f"unsorted_segment_{ufunc.__name__}"
    return kernel


def _counts(x: np.ndarray, weights: np.ndarray, size: int, binary: bool) -> np.ndarray:
    """Counts of each row of a 2-d x (weighted where weights are not empty)."""
    rows = np.broadcast_to(np.arange(x.shape[0])[:, None], x.shape)
    keep = (x >= 0) & (x < size)
    out = np.zeros((x.shape[0], size), dtype=weights.dtype)
    if binary:
        out[rows[keep], x[keep]] = 1
        return out
    w = weights[keep] if weights.size else np.ones(int(keep.sum()), weights.dtype)
    np.add.at(out, (rows[keep], x[keep]), w)
    return out


def bincount(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, weights = inputs
    return _counts(x[None], weights.reshape(1, -1) if weights.size else weights, attrs["size"], False)[0]


def dense_bincount(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, weights = inputs
    flat = x.ndim == 1
    if flat:
        x, weights = x[None], (weights[None] if weights.size else weights)
    out = _counts(x, weights, attrs["size"], attrs["binary_output"])
    return out[0] if flat else out


KERNELS: dict[str, Callable[..., Any]] = {
    "UnsortedSegmentSum": _segment(np.add, None),
    "UnsortedSegmentMax": _segment(np.maximum, False),
    "UnsortedSegmentMin": _segment(np.minimum, True),
    "Bincount": bincount,
    "DenseBincount": dense_bincount,
}
