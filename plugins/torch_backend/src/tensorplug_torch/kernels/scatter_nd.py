"""N-d gather/scatter kernels (TF semantics): GatherNd, ScatterNd, TensorScatterUpdate.

Each row of ``indices`` (its last axis) addresses the leading axes of the indexed shape. An
index outside ``[0, size)`` (negative ones included: TF does not count them from the end) is an
IndexOutOfRangeError naming the row (``kernel_helpers.check_nd_index_bounds``), never a
wrapped read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug.kernel_helpers import check_nd_index_bounds


def _nd_index(indices: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The torch index of n-d `indices`: one int64 tensor per addressed axis (int64: torch
    reads uint8 and bool index tensors as masks)."""
    return tuple(torch.movedim(indices.to(torch.int64), -1, 0))


def gather_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    params, indices = inputs
    check_nd_index_bounds("GatherNd", backend.name, indices.cpu(), params.shape)
    return params[_nd_index(indices)]


def scatter_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices; repeated indices accumulate (bools: or)."""
    indices, updates = inputs
    shape = tuple(attrs["shape"])
    check_nd_index_bounds("ScatterNd", backend.name, indices.cpu(), shape, "the output")
    if updates.dtype == torch.bool:  # (added as integers: "or")
        counts = torch.zeros(shape, dtype=torch.int64, device=updates.device)
        return counts.index_put_(_nd_index(indices), updates.long(), accumulate=True) != 0
    out = torch.zeros(shape, dtype=updates.dtype, device=updates.device)
    return out.index_put_(_nd_index(indices), updates, accumulate=True)


def tensor_scatter_update(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    tensor, indices, updates = inputs
    check_nd_index_bounds("TensorScatterUpdate", backend.name, indices.cpu(), tensor.shape, "tensor")
    return tensor.clone().index_put_(_nd_index(indices), updates)


KERNELS: dict[str, Callable[..., Any]] = {
    "GatherNd": gather_nd,
    "ScatterNd": scatter_nd,
    "TensorScatterUpdate": tensor_scatter_update,
}
