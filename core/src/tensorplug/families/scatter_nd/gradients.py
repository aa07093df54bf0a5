"""Default gradients of the n-d gather/scatter kernels: GatherNd and ScatterNd are each other's
gradient (as in TF.js); TensorScatterUpdate passes dy to the tensor with the replaced slices
zeroed, and the slices of dy it replaced to the updates that replaced them: where indices
repeat, only the update the kernel kept (found by scattering the rows' numbers with the kernel
itself, as JAX's scatter does) takes a gradient; the others had no effect. Integer indices take
no gradient."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import int64
from tensorplug.families._common.gradient_util import gradient, kernel

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("GatherNd", inputs=("params", "indices"))
def _gather_nd(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    params, indices = saved  # repeated indices accumulate, which is what ScatterNd does
    return {"params": lambda: kernel("ScatterNd", indices, dy, shape=params.shape)}


@gradient("ScatterNd", inputs=("indices",))
def _scatter_nd(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (indices,) = saved
    return {"updates": lambda: kernel("GatherNd", dy, indices)}


@gradient("TensorScatterUpdate", inputs=("indices", "updates"))
def _tensor_scatter_update(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    indices, updates = saved

    def updates_grad() -> Tensor:
        rows = indices.shape[:-1]
        numbers = tp.reshape(tp.arange(math.prod(rows), dtype=int64), rows)
        board = tp.full(dy.shape[:indices.shape[-1]], -1, dtype=int64)
        kept = tp.equal(kernel("GatherNd", kernel("TensorScatterUpdate", board, indices, numbers), indices),
                        numbers)  # each row: whether its update is the one the kernel wrote
        kept = tp.reshape(kept, rows + (1,) * (updates.ndim - len(rows)))
        return tp.where(kept, kernel("GatherNd", dy, indices), tp.zeros_like(updates))
    return {"tensor": lambda: kernel("TensorScatterUpdate", dy, indices, tp.zeros_like(updates)),
            "updates": updates_grad}
