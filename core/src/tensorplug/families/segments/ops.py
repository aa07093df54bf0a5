"""Segment ops (jax.ops names): segment_sum, segment_mean, segment_max, segment_min, and the
counting ops bincount (jnp.bincount's signature) and dense_bincount (TF.js's denseBincount).

Row i of data (over the axes of segment_ids, 1-d as in jax or any prefix of data's shape as in
TF) goes to segment ``segment_ids[i]``. ``num_segments=None`` counts ``max(ids) + 1`` segments,
which needs the ids' values: inside ``tp.jit`` pass it. Ids the op can see must lie in
``[0, num_segments)`` (an IndexOutOfRangeError otherwise); inside ``tp.jit`` an id out of range
is dropped, as jax.ops drops it. An empty segment holds 0 (sum, mean), -inf or the dtype's
minimum (max), inf or its maximum (min), as jax.ops gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import active_backend
from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import ALL_NUMERIC_DTYPES, NUMERIC_DTYPES
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError, TracedValueError
from tensorplug.families._common.convert import asarray, caller, to_float
from tensorplug.families.elementwise.ops import divide, maximum
from tensorplug.families.manipulation.ops import reshape
from tensorplug.families.scatter_nd.ops import host_values, int_values
from tensorplug.families.segments.spec import bincount_shape, segment_shape
from tensorplug.kernels.dispatcher import Dispatcher

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "bincount", "dense_bincount"]

_SUM = caller("UnsortedSegmentSum")
_MAX = caller("UnsortedSegmentMax")
_MIN = caller("UnsortedSegmentMin")
_BINCOUNT = caller("Bincount")
_DENSE_BINCOUNT = caller("DenseBincount")


def _needs_values(op: str, arg: str) -> TracedValueError:
    return TracedValueError(f"{op}: {arg}=None takes its value from the data, which a function being "
                            f"compiled by tp.jit does not have; pass {arg} (an int).")


def _segments(op: str, data: Any, segment_ids: Any, num_segments: Any,
              dtypes: tuple[Any, ...]) -> tuple[Tensor, Tensor, int]:
    """data, the ids and the number of segments, checked; ids out of range refused where known."""
    data = asarray(data)
    if data.dtype not in dtypes:
        raise DTypeError(f"{op}: data must have a {'real ' if dtypes is NUMERIC_DTYPES else ''}numeric "
                         f"dtype, got {data.dtype.name}; cast it, e.g. data.astype(tp.float32).")
    ids = int_values(op, segment_ids, "segment_ids")
    host = host_values(ids)
    if num_segments is None:
        if host is None:
            raise _needs_values(op, "num_segments")
        n = int(host.max()) + 1 if host.size else 0
    else:
        n = valid.size(num_segments, op, "num_segments")
    # (past int64's elements XLA aborts the process: refused first, as the creation ops do)
    valid.checked_size(segment_shape(data.shape, ids.shape, n, op), data._backend, op)
    if host is not None and host.size and (host.min() < 0 or host.max() >= n):
        bad = int(host.min() if host.min() < 0 else host.max())
        raise IndexOutOfRangeError(f"{op}: segment id {bad} is out of range for {n} segments (valid: "
                                   f"0..{n - 1}); pass a larger num_segments or fix the ids.")
    return data, asarray(ids), n


def _reduction(kernel: Dispatcher, dtypes: tuple[Any, ...]) -> Callable[..., Tensor]:
    def reduce(op: str, data: Any, segment_ids: Any, num_segments: Any) -> Tensor:
        data, ids, n = _segments(op, data, segment_ids, num_segments, dtypes)
        return kernel((data, ids), {"num_segments": n})
    return reduce


_sum = _reduction(_SUM, ALL_NUMERIC_DTYPES)
_max = _reduction(_MAX, NUMERIC_DTYPES)
_min = _reduction(_MIN, NUMERIC_DTYPES)


def segment_sum(data: Any, segment_ids: Any, num_segments: int | None = None) -> Tensor:
    """Sum of the rows of data in each segment: out[s] = sum(data[i] for ids[i] == s)."""
    return _sum("segment_sum", data, segment_ids, num_segments)


def segment_max(data: Any, segment_ids: Any, num_segments: int | None = None) -> Tensor:
    """Maximum of the rows of data in each segment (-inf, or the dtype's minimum, when empty)."""
    return _max("segment_max", data, segment_ids, num_segments)


def segment_min(data: Any, segment_ids: Any, num_segments: int | None = None) -> Tensor:
    """Minimum of the rows of data in each segment (inf, or the dtype's maximum, when empty)."""
    return _min("segment_min", data, segment_ids, num_segments)


def segment_mean(data: Any, segment_ids: Any, num_segments: int | None = None) -> Tensor:
    """Mean of the rows of data in each segment (0 when empty); integers give the default float."""
    data, ids, n = _segments("segment_mean", data, segment_ids, num_segments, ALL_NUMERIC_DTYPES)
    data = to_float(data)
    total = _SUM((data, ids), {"num_segments": n})
    ones = asarray(np.ones(ids.shape, data.dtype.numpy))
    count = _SUM((ones, ids), {"num_segments": n})
    count = reshape(count, count.shape + (1,) * (data.ndim - ids.ndim))
    return divide(total, maximum(count, 1))


def _counted(op: str, x: Any, weights: Any, ndims: tuple[int, ...]
             ) -> tuple[Tensor, Tensor, np.ndarray | None]:
    """x (non-negative integers where known), the weights (empty for none) and x's values."""
    idx = int_values(op, x, "x")
    if idx.ndim not in ndims:
        raise ShapeError(f"{op}: x must be {' or '.join(f'{d}-d' for d in ndims)}, got shape "
                         f"{tuple(idx.shape)}.")
    host = host_values(idx)
    if host is not None and host.size and host.min() < 0:
        raise ShapeError(f"{op}: x holds the negative value {int(host.min())}; values count into bins "
                         "0, 1, ..., so they must be >= 0.")
    w = asarray(np.zeros(0, np.int64)) if weights is None else asarray(weights)
    if weights is not None and w.dtype not in NUMERIC_DTYPES:
        raise DTypeError(f"{op}: weights must be real numbers, got {w.dtype.name}.")
    return asarray(idx), w, host


def bincount(x: Any, /, weights: Any = None, minlength: int = 0, *, length: int | None = None) -> Tensor:
    """Counts of each value of the non-negative 1-d integer x (summed weights if given): bins
    0 .. max(max(x) + 1, minlength) - 1, or exactly `length` bins (values past it are dropped).
    Inside tp.jit the bin count must be static: pass `length`."""
    op = "bincount"
    xs, w, host = _counted(op, x, weights, (1,))
    minlength = valid.size(minlength, op, "minlength")
    if length is None:
        if host is None:
            raise _needs_values(op, "length")
        length = max(int(host.max()) + 1 if host.size else 0, minlength)
    size = valid.size(length, op, "length")
    valid.checked_size((size,), active_backend(), op)
    bincount_shape(xs.shape, w.shape, size, op)
    return _BINCOUNT((xs, w), {"size": size})


def dense_bincount(x: Any, size: int, weights: Any = None, *, binary_output: bool = False) -> Tensor:
    """Counts of each value in [0, size) of the non-negative integer x, per row of a 2-d x
    (summed weights if given; 1 for any count with binary_output); values past size are dropped."""
    op = "dense_bincount"
    xs, w, _ = _counted(op, x, weights, (1, 2))
    size = valid.size(size, op, "size")
    bincount_shape(xs.shape, w.shape, size, op, dense=True)
    valid.checked_size((xs.shape[0] if xs.ndim == 2 else 1, size), active_backend(), op)
    binary = valid.flag(binary_output, op, "binary_output")
    return _DENSE_BINCOUNT((xs, w), {"size": size, "binary_output": binary})


