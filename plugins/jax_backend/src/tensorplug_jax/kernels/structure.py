"""Structure kernels: Reverse, Tile, SplitV, Unpack, BroadcastArgs, Diag, MatrixBandPart, TopK,
compiled once per value of their static attributes. TopK selects with the sorting
family's stable descending order (``kernel_helpers.stable_argsort``: ties in order, NaNs last),
as the numpy backend does, where ``lax.top_k`` would put NaNs first. BroadcastArgs takes, per
axis, the size that is not 1 (the first one's where they clash, as the numpy kernel:
tp.broadcast_args refuses that before it dispatches; a kernel cannot raise on values under tp.jit)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tensorplug.kernel_helpers import band_part, stable_argsort
from tensorplug_jax.kernels._jit import JaxKernel, with_attrs

_INT64 = np.dtype(np.int64)


def _reverse(x: Any, axes: tuple[int, ...]) -> Any:
    return jnp.flip(x, axes) if axes else x


def _tile(x: Any, reps: tuple[int, ...]) -> Any:
    return jnp.tile(x, reps) if x.ndim else x


def _split_v(x: Any, sizes: tuple[int, ...], axis: int) -> tuple[Any, ...]:
    cuts = np.cumsum(sizes[:-1]).tolist()
    return tuple(jnp.split(x, cuts, axis=axis))


def _unpack(x: Any, axis: int) -> tuple[Any, ...]:
    return tuple(jnp.moveaxis(x, axis, 0))


def _broadcast_shape(s0: Any, s1: Any) -> Any:
    n = max(s0.shape[0], s1.shape[0])
    a = jnp.concatenate([jnp.ones(n - s0.shape[0], s0.dtype), s0])
    b = jnp.concatenate([jnp.ones(n - s1.shape[0], s1.dtype), s1])
    return jnp.where(a == 1, b, a)


def _diag(x: Any) -> Any:
    n = x.size
    flat = jnp.zeros((n * n,), x.dtype).at[:: n + 1].set(x.reshape(-1)) if n else jnp.zeros((0,), x.dtype)
    return flat.reshape(x.shape + x.shape)


def _band_part(x: Any, num_lower: int, num_upper: int) -> Any:
    return band_part(jnp, x, num_lower, num_upper)


def _argsort(x: Any, axis: int) -> Any:
    return jnp.argsort(x, axis=axis, stable=True)


def _top_k(x: Any, k: int, sorted: bool) -> tuple[Any, Any]:  # noqa: A002  (TF's attribute name)
    order = stable_argsort(_argsort, x, x.ndim - 1, True)[..., :k]
    return jnp.take_along_axis(x, order, axis=-1), order.astype(_INT64)


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    "Reverse": with_attrs(_reverse, static=("axes",)),
    "Tile": with_attrs(_tile, static=("reps",)),
    "SplitV": with_attrs(_split_v, static=("sizes", "axis")),
    "Unpack": with_attrs(_unpack, static=("axis",)),
    "BroadcastArgs": with_attrs(_broadcast_shape),
    "Diag": with_attrs(_diag),
    "MatrixBandPart": with_attrs(_band_part, static=("num_lower", "num_upper")),
    "TopK": with_attrs(_top_k, static=("k", "sorted")),
}
