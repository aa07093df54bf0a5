"""Default gradients of the segment kernels: UnsortedSegmentSum gathers dy back to each row
(TF.js), UnsortedSegmentMax/Min pass dy to the rows equal to their segment's result, split
equally among ties (as Max's gradient does). Rows whose id is out of range (dropped by the
kernels) get 0. Bincount and DenseBincount are not differentiable (TF.js has no gradient)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType
from tensorplug.families._common.gradient_util import gradient, kernel

Grads = Mapping[str, Callable[[], Tensor]]


def rows_of(t: Tensor, ids: Tensor, n: int, rank: int) -> tuple[Tensor, Tensor]:
    """t's row of each id (row 0 where the id is out of range) and where the id is in range,
    shaped to broadcast against data of `rank` dims."""
    inside = tp.logical_and(ids >= 0, ids < n)
    picked = kernel("Gather", t, tp.where(inside, ids, 0), axis=0)
    return picked, tp.reshape(inside, ids.shape + (1,) * (rank - ids.ndim))


def extremum_hits(data: Tensor, ids: Tensor, out: Tensor, n: int, dtype: DType) -> tuple[Tensor, Tensor]:
    """Where a row of `data` equals its segment's extremum `out` (1 or 0, of `dtype`; 0 for an
    id out of range) and, per segment, how many rows do (the ties the gradient splits among)."""
    best, inside = rows_of(out, ids, n, data.ndim)
    hits = tp.astype(tp.logical_and(data == best, inside), dtype)
    return hits, kernel("UnsortedSegmentSum", hits, ids, num_segments=n)


@gradient("UnsortedSegmentSum", inputs=("segment_ids",))
def _segment_sum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (ids,) = saved

    def ddata() -> Tensor:
        rank = ids.ndim + dy.ndim - 1
        picked, inside = rows_of(dy, ids, attrs["num_segments"], rank)
        return tp.where(inside, picked, tp.zeros_like(picked))

    return {"data": ddata}


def _segment_extremum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    data, ids, out = saved
    n = attrs["num_segments"]

    def ddata() -> Tensor:
        hits, count = extremum_hits(data, ids, out, n, dy.dtype)
        share, _ = rows_of(dy / tp.maximum(count, 1), ids, n, data.ndim)
        return hits * share

    return {"data": ddata}


gradient("UnsortedSegmentMax", inputs=("data", "segment_ids"), outputs=("out",))(_segment_extremum)
gradient("UnsortedSegmentMin", inputs=("data", "segment_ids"), outputs=("out",))(_segment_extremum)
