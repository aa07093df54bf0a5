"""Default gradients of the sparse kernels, as TF (Python) has them (TF.js has none):
SparseSegmentSum/Mean pass each segment's dy (divided by its count for the mean) back to the
rows of data they read; SparseToDense passes dy at the indices to the values and the rest of dy
to default_value. Indices and shapes take no gradient; SparseReshape (integers only) and
SparseFillEmptyRows (as in TF.js; its outputs' sizes depend on the values) are not
differentiable."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel
from tensorplug.families.segments.gradients import rows_of

Grads = Mapping[str, Callable[[], Tensor]]


def _sparse_segment(mean: bool) -> Callable[..., Grads]:
    def grad(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        data, indices, ids = saved

        def ddata() -> Tensor:
            n = dy.shape[0]
            share = dy
            if mean:
                count = kernel("UnsortedSegmentSum", tp.ones(ids.shape, dtype=dy.dtype), ids, num_segments=n)
                share = dy / tp.reshape(tp.maximum(count, 1), (n,) + (1,) * (dy.ndim - 1))
            rows, inside = rows_of(share, ids, n, dy.ndim)
            rows = tp.where(inside, rows, tp.zeros_like(rows))
            return kernel("UnsortedSegmentSum", rows, indices, num_segments=data.shape[0])

        return {"data": ddata}
    return grad


gradient("SparseSegmentSum", inputs=("data", "indices", "segment_ids"))(_sparse_segment(False))
gradient("SparseSegmentMean", inputs=("data", "indices", "segment_ids"))(_sparse_segment(True))


@gradient("SparseToDense", inputs=("sparse_indices", "sparse_values"))
def _sparse_to_dense(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    indices, values = saved
    rows = tp.reshape(indices, (-1, dy.ndim))
    picked = kernel("GatherNd", dy, rows)  # (the indices are distinct)
    return {"sparse_values": lambda: picked if values.ndim else tp.sum(picked),
            "default_value": lambda: tp.sum(dy) - tp.sum(picked)}

