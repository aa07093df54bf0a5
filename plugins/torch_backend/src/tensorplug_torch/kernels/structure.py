"""Structure kernels: Reverse, Tile, SplitV, Unpack, BroadcastArgs, Diag, MatrixBandPart, TopK.
SplitV and Unpack return torch views of their input (safe: native arrays are never written
after creation), as a tuple. TopK selects in the sorting family's stable descending order (ties
in order, NaNs last). BroadcastArgs takes, per axis, the size that is not 1 (the first one's
where they clash, as the other backends: tp.broadcast_args refuses that before it dispatches)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug.kernel_helpers import band_part
from tensorplug_torch.kernels._namespace import namespace


def reverse(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return torch.flip(x, attrs["axes"]) if attrs["axes"] else x


def tile(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return torch.tile(x, attrs["reps"]) if x.ndim else x.clone()


def split_v(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
    return tuple(torch.split(inputs[0], list(attrs["sizes"]), dim=attrs["axis"]))


def unpack(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
    return tuple(torch.unbind(inputs[0], attrs["axis"]))


def broadcast_args(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    s0, s1 = inputs
    n = max(s0.numel(), s1.numel())
    a = torch.cat([s0.new_ones(n - s0.numel()), s0])
    b = torch.cat([s1.new_ones(n - s1.numel()), s1])
    return torch.where(a == 1, b, a)  # (where neither is 1 and they differ: a; the op refuses that)


def diag(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    n = x.numel()
    out = torch.zeros((n, n), dtype=x.dtype, device=x.device)
    out.reshape(-1)[::n + 1] = x.reshape(-1)  # (writes `out`, made here)
    return out.reshape(tuple(x.shape) + tuple(x.shape))


def matrix_band_part(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return band_part(namespace(x.device), x, attrs["num_lower"], attrs["num_upper"])


def descending_order(x: torch.Tensor, axis: int) -> torch.Tensor:
    """The indices that sort `x` along `axis` stably from the largest, NaNs last: floats by
    their negation (exact; NaN stays NaN, sorted last), integers by their bitwise complement
    (~x = -x - 1: the order reversed without overflow), bools by their negation."""
    if x.is_floating_point():
        key = -x
    elif x.dtype == torch.bool:
        key = ~x
    else:
        key = torch.bitwise_not(x)
    return torch.argsort(key, dim=axis, stable=True)


def top_k(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    x = inputs[0]
    order = descending_order(x, x.ndim - 1)[..., :attrs["k"]]
    return torch.take_along_dim(x, order, dim=-1), order


KERNELS: dict[str, Callable[..., Any]] = {
    "Reverse": reverse,
    "Tile": tile,
    "SplitV": split_v,
    "Unpack": unpack,
    "BroadcastArgs": broadcast_args,
    "Diag": diag,
    "MatrixBandPart": matrix_band_part,
    "TopK": top_k,
}
