"""N-d gather/scatter kernels (TF semantics): GatherNd, ScatterNd, TensorScatterUpdate.

Each row of ``indices`` (its last axis) addresses the leading axes of the indexed shape. An
index outside ``[0, size)`` (negative ones included: TF does not count them from the end) is an
IndexOutOfRangeError naming the row, never a wrapped read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import check_nd_index_bounds
from tensorplug_numpy.kernels._kernel import Kernel


def _nd_index(indices: np.ndarray) -> tuple[np.ndarray, ...]:
    """The numpy index of n-d `indices`: one integer array per addressed axis."""
    return tuple(np.moveaxis(indices, -1, 0))


def gather_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    params, indices = inputs
    check_nd_index_bounds("GatherNd", backend.name, indices, params.shape)
    return params[_nd_index(indices)]


def scatter_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """zeros(shape) with updates added at indices; repeated indices accumulate (bools: or)."""
    indices, updates = inputs
    shape = attrs["shape"]
    check_nd_index_bounds("ScatterNd", backend.name, indices, shape, "the output")
    out = np.zeros(shape, dtype=updates.dtype)
    np.add.at(out, _nd_index(indices), updates)
    return out


def tensor_scatter_update(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    tensor, indices, updates = inputs
    check_nd_index_bounds("TensorScatterUpdate", backend.name, indices, tensor.shape, "tensor")
    out = np.array(tensor, copy=True)
    out[_nd_index(indices)] = updates
    return out


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "GatherNd": Kernel(gather_nd, handles_warnings=True),  # (moves data: no warning to switch off)
    "ScatterNd": scatter_nd,
    "TensorScatterUpdate": Kernel(tensor_scatter_update, handles_warnings=True),
}
