"""Default gradients of the n-d gather/scatter kernels: GatherNd and ScatterNd are each other's
gradient (as in TF.js); TensorScatterUpdate passes dy to the tensor with the replaced slices
zeroed, and the slices of dy it replaced to the updates. Integer indices take no gradient."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import ops as tp
from ..tensor import Tensor
from ._util import gradient, kernel

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
    return {"tensor": lambda: kernel("TensorScatterUpdate", dy, indices, tp.zeros_like(updates)),
            "updates": lambda: kernel("GatherNd", dy, indices)}
