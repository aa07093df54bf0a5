"""Structure kernels: Reverse, Tile, SplitV, Unpack, BroadcastArgs, Diag, MatrixBandPart, TopK.
Reverse, SplitV and Unpack return numpy views of their input (safe: native arrays are never
written after creation), SplitV and Unpack a tuple of them. TopK
selects with the sorting family's stable descending order (``kernel_helpers.stable_argsort``:
ties in order, NaNs last). BroadcastArgs takes, per
axis, the size that is not 1 (the first one's where they clash, as jax's kernel: tp.broadcast_args
refuses that before it dispatches)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import band_part, stable_argsort
from tensorplug_numpy.kernels._kernel import Kernel
from tensorplug_numpy.kernels.layout import moving

_INT64 = np.dtype(np.int64)


def reverse(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return np.flip(x, attrs["axes"]) if attrs["axes"] else x[...]


def tile(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return np.tile(x, attrs["reps"]) if x.ndim else x.copy()


def split_v(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
    x = inputs[0]
    cuts = np.cumsum(attrs["sizes"][:-1]).tolist()
    return tuple(np.split(x, cuts, axis=attrs["axis"]))


def unpack(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
    return tuple(np.moveaxis(inputs[0], attrs["axis"], 0))


def broadcast_args(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    s0, s1 = inputs
    n = max(s0.size, s1.size)
    a = np.concatenate([np.ones(n - s0.size, s0.dtype), s0])
    b = np.concatenate([np.ones(n - s1.size, s1.dtype), s1])
    return np.where(a == 1, b, a)  # (where neither is 1 and they differ: a; the op refuses that)


def diag(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    n = x.size
    out = np.zeros((n, n), dtype=x.dtype)
    out.reshape(-1)[::n + 1] = x.reshape(-1)
    return out.reshape(x.shape + x.shape)


def matrix_band_part(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return band_part(np, inputs[0], attrs["num_lower"], attrs["num_upper"])


def _argsort(x: Any, axis: int) -> Any:
    return np.argsort(x, axis=axis, kind="stable")


def top_k(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    x = inputs[0]
    order = stable_argsort(_argsort, x, x.ndim - 1, True)[..., :attrs["k"]]
    return np.take_along_axis(x, order, axis=-1), order.astype(_INT64, copy=False)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Reverse": moving(reverse),
    "Tile": moving(tile),
    "SplitV": moving(split_v),
    "Unpack": moving(unpack),
    "BroadcastArgs": broadcast_args,
    "Diag": moving(diag),
    "MatrixBandPart": moving(matrix_band_part),
    "TopK": top_k,
}
