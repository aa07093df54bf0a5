"""Sparse kernels (TF semantics): SparseSegmentSum, SparseSegmentMean, SparseToDense (torch's
``index_add_``, ``bincount`` and an indexed write into tensors the kernel made), SparseReshape and
SparseFillEmptyRows (``kernel_helpers``' arithmetic on host copies of the small index arrays: the
latter's output length depends on them). Index checks read the indices on the host."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from tensorplug.kernel_helpers import (
    check_index_bounds,
    check_nd_index_bounds,
    fill_empty_rows,
    sparse_reshape_indices,
    sparse_reshape_shape,
)
from tensorplug_torch.kernels._host import from_host, to_host

__all__ = ["KERNELS"]


def _sparse_segment(mean: bool) -> Callable[..., torch.Tensor]:
    name = "SparseSegmentMean" if mean else "SparseSegmentSum"

    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
        data, indices, ids = inputs
        n = attrs["num_segments"]
        if n is None:  # (TF.js: the last id + 1)
            n = int(ids[-1]) + 1 if ids.numel() else 0
        if ids.numel():
            check_index_bounds(name, backend.name, to_host(indices), data.shape, 0, "data")
        keep = (ids >= 0) & (ids < n)
        at = ids[keep].long()
        out = data.new_zeros((n, *data.shape[1:])).index_add_(0, at, data[indices[keep].long()])
        if mean:
            counts = torch.bincount(at, minlength=n).clamp_(min=1).to(data.dtype)
            out /= counts.reshape(n, *(1,) * (data.ndim - 1))
        return out

    kernel.__name__ = name
    return kernel


def sparse_to_dense(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    indices, values, default = inputs
    shape = tuple(attrs["output_shape"])
    rows = indices.reshape(-1, len(shape)).long()
    check_nd_index_bounds("SparseToDense", backend.name, to_host(rows), shape, "the output")
    out = default.expand(shape).clone()
    out[tuple(rows.T)] = values
    return out


def sparse_reshape(inputs: list[torch.Tensor], attrs: dict[str, Any],
                   backend: Any) -> tuple[torch.Tensor, torch.Tensor]:
    indices, shape, new_shape = inputs
    host_shape, host_new = to_host(shape), to_host(new_shape)
    sparse_reshape_shape("SparseReshape", backend.name, host_shape.tolist(), host_new.tolist())  # (sizes)
    out, out_shape = sparse_reshape_indices(np, to_host(indices), host_shape, host_new)
    return from_host(out, indices), from_host(out_shape, shape)


def sparse_fill_empty_rows(inputs: list[torch.Tensor], attrs: dict[str, Any],
                           backend: Any) -> tuple[torch.Tensor, ...]:
    indices, values, dense_shape, default = inputs
    host_indices, host_shape = to_host(indices), to_host(dense_shape)
    check_nd_index_bounds("SparseFillEmptyRows", backend.name, host_indices, host_shape.tolist(),
                          "dense_shape")
    out = fill_empty_rows(np, host_indices, to_host(values), int(host_shape[0]) if host_shape.size else 0,
                          to_host(default))
    return (from_host(out[0], indices), from_host(out[1], values), from_host(out[2], indices, torch.bool),
            from_host(out[3], indices))


KERNELS: dict[str, Callable[..., Any]] = {
    **{f"SparseSegment{kind}": _sparse_segment(kind == "Mean") for kind in ("Sum", "Mean")},
    "SparseToDense": sparse_to_dense,
    "SparseReshape": sparse_reshape,
    "SparseFillEmptyRows": sparse_fill_empty_rows,
}
