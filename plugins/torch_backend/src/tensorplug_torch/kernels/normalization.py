"""Normalization kernels: FusedBatchNorm (the parameters broadcast against x), LRN and LRNGrad
(TF's local response normalization over the last axis: the window sums of squares are
``Tensor.unfold`` windows of the zero-padded axis). Half floats compute in float32."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from tensorplug_torch.kernels._layouts import compute_dtype

__all__ = ["KERNELS"]


def _wide(a: torch.Tensor) -> torch.Tensor:
    return a.to(compute_dtype(a.dtype))


def fused_batch_norm(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, scale, offset, mean, variance = (_wide(a) for a in inputs)
    factor = scale * torch.rsqrt(variance + attrs["epsilon"])
    return ((x - mean) * factor + offset).to(inputs[0].dtype)


def _window_sum(a: torch.Tensor, radius: int) -> torch.Tensor:
    """The sum over a[..., c - radius:c + radius + 1] (zeros past the ends) for every c."""
    if radius == 0 or not a.numel():  # (no neighbours; or nothing to sum)
        return a
    return F.pad(a, (radius, radius)).unfold(-1, 2 * radius + 1, 1).sum(-1)


def _norm(x: torch.Tensor, attrs: dict[str, Any]) -> torch.Tensor:
    """bias + alpha * the window sums of squares."""
    return attrs["bias"] + attrs["alpha"] * _window_sum(x * x, attrs["depth_radius"])


def lrn(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x = _wide(inputs[0])
    return (x * _norm(x, attrs) ** -attrs["beta"]).to(inputs[0].dtype)


def lrn_grad(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    """dy * N^-beta - 2 alpha beta x * S(dy * x * N^(-beta - 1)), N the norm, S the window sum
    (its own transpose: the window is symmetric)."""
    dy, x = _wide(inputs[0]), _wide(inputs[1])
    n = _norm(x, attrs)
    p = n ** -attrs["beta"]
    c = 2 * attrs["alpha"] * attrs["beta"]
    return (dy * p - c * x * _window_sum(dy * x * p / n, attrs["depth_radius"])).to(inputs[0].dtype)


KERNELS: dict[str, Callable[..., Any]] = {
    "FusedBatchNorm": fused_batch_norm,
    "LRN": lrn,
    "LRNGrad": lrn_grad,
}
