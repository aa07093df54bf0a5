"""N-d gather and scatter ops (TF semantics): gather_nd, scatter_nd, tensor_scatter_update.

``indices[..., :k]`` rows address the first k axes of the indexed shape. Indices the op can see
(host arrays, eager tensors) must lie in ``[0, size)``: an IndexOutOfRangeError names the first
row outside, and negative indices are out of range (they are not counted from the end, as in
TF). Inside ``tp.jit`` the op cannot see the values: a row out of range is passed on as one far
outside, which the numpy backend's kernels still refuse (IndexOutOfRangeError) and the jax
backend's turn into the fill value (NaN for floats, as ``tp.take`` does) for a gather and NaN
everywhere (floats) for a scatter: never a silently clamped read or write (jax clamps by
default). Also the helpers the segment and sparse ops check indices with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import active_backend
from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import int64
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError, TracedValueError
from tensorplug.families._common.convert import asarray, astype, caller
from tensorplug.families.scatter_nd.spec import nd_slice_shape

__all__ = ["gather_nd", "scatter_nd", "tensor_scatter_update"]

_GATHER_ND = caller("GatherNd")
_SCATTER_ND = caller("ScatterNd")
_TENSOR_SCATTER_UPDATE = caller("TensorScatterUpdate")


def int_values(op: str, value: Any, arg: str = "indices") -> Any:
    """An integer Tensor as it is, or host integers (a numpy int64 array); DTypeError naming
    `op` and `arg` for anything else."""
    idx: Any
    if isinstance(value, Tensor):
        idx = value
    else:
        try:
            idx = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise DTypeError(f"{op}: cannot use {value!r} as {arg}: {exc}") from None
        if idx.size == 0 and idx.dtype.kind == "f":  # ([] is float64 to numpy)
            idx = idx.astype(np.int64)
    if idx.dtype.kind not in ("int", "uint", "i", "u"):
        raise DTypeError(f"{op}: {arg} must be integers, got {idx.dtype}; cast them, e.g. "
                         "x.astype(tp.int64).")
    return idx


def host_values(idx: Any) -> np.ndarray | None:
    """The values of host integers or of an eager tensor; None inside tp.jit (traced)."""
    if not isinstance(idx, Tensor):
        return np.asarray(idx)
    try:
        return np.asarray(idx.numpy())
    except TracedValueError:
        return None


def _checked_nd(op: str, idx: Any, shape: Sequence[int], what: str) -> Any:
    """n-d indices into `shape`, bounds-checked where their values are known. Where they are
    not (inside tp.jit, or batched inside tp.vmap) they go to the kernel as they are: the n-d
    kernels count no index from the end, so one out of range stays out of range (refused
    where the kernel sees values, NaN or a fill inside tp.jit), and the kernel's error names it."""
    k = idx.shape[-1]
    sizes = np.asarray(tuple(shape)[:k], np.int64)
    host = host_values(idx)
    if host is None:
        return astype(idx, int64)
    bad = ((host < 0) | (host >= sizes)).reshape(-1, k)
    rows = np.flatnonzero(bad.any(axis=1))
    if rows.size:
        row = host.reshape(-1, k)[rows[0]]
        raise IndexOutOfRangeError(
            f"{op}: index {row.tolist()} is out of range for {what} of shape {tuple(shape)}: each index "
            f"must lie in [0, size) of its axis (sizes {tuple(sizes.tolist())}); negative indices are not "
            "counted from the end.")
    return idx


def _updates(op: str, updates: Any, want: tuple[int, ...], dtype: Any = None) -> Tensor:
    u = updates if isinstance(updates, Tensor) else asarray(updates, dtype=dtype)
    if u.shape != want:
        raise ShapeError(f"{op}: updates have shape {u.shape}; the indices address slices of shape "
                         f"{want}, so updates must have that shape.")
    return u


def gather_nd(params: Any, indices: Any, /) -> Tensor:
    """out[b] = params[tuple(indices[b])]: the slice at each row of the integer `indices` (its
    last axis indexes the leading axes of params); shape ``indices.shape[:-1] + params.shape[k:]``."""
    op = "gather_nd"
    params = asarray(params)
    idx = int_values(op, indices)
    nd_slice_shape(params.shape, idx.shape, op)
    idx = _checked_nd(op, idx, params.shape, "params")
    return _GATHER_ND((params, asarray(idx)), {})


def scatter_nd(indices: Any, updates: Any, shape: int | Sequence[int]) -> Tensor:
    """Zeros of `shape` with each updates[b] added at indices[b] (repeated indices accumulate);
    the gradient of gather_nd."""
    op = "scatter_nd"
    dims = valid.checked_size(valid.shape(shape, op), active_backend(), op)
    idx = int_values(op, indices)
    u = _updates(op, updates, nd_slice_shape(dims, idx.shape, op, "the output"))
    idx = _checked_nd(op, idx, dims, "the output")
    return _SCATTER_ND((asarray(idx), u), {"shape": dims})


def tensor_scatter_update(tensor: Any, indices: Any, updates: Any) -> Tensor:
    """`tensor` with the slice at each row of `indices` replaced by updates[b] (for repeated
    indices, which update wins is unspecified, as in TF); updates are cast to tensor's dtype."""
    op = "tensor_scatter_update"
    tensor = asarray(tensor)
    idx = int_values(op, indices)
    u = _updates(op, updates, nd_slice_shape(tensor.shape, idx.shape, op, "tensor"), tensor.dtype)
    if u.dtype != tensor.dtype:
        raise DTypeError(f"{op}: updates have dtype {u.dtype.name} and tensor {tensor.dtype.name}; cast the "
                         f"updates, e.g. updates.astype(tp.{tensor.dtype.name}).")
    idx = _checked_nd(op, idx, tensor.shape, "tensor")
    return _TENSOR_SCATTER_UPDATE((tensor, asarray(idx), u), {})
