"""Normalization kernels: FusedBatchNorm (the parameters broadcast against x), LRN and LRNGrad
(TF's local response normalization over the last axis: the window sums of squares are a
``sliding_window_view`` of the zero-padded axis). Half floats compute in float32."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _wide(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) if a.dtype.itemsize < 4 else a


def fused_batch_norm(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, scale, offset, mean, variance = (_wide(a) for a in inputs)
    factor = scale / np.sqrt(variance + np.asarray(attrs["epsilon"], variance.dtype))
    out = np.subtract(x, mean, dtype=np.result_type(x, factor))  # (one new array, then in place)
    out *= factor
    out += offset
    return out.astype(inputs[0].dtype, copy=False)


def _window_sum(a: np.ndarray, radius: int) -> np.ndarray:
    """The sum over a[..., c - radius:c + radius + 1] (zeros past the ends) for every c."""
    if radius == 0 or not a.shape[-1]:  # (no neighbours; or no channels, nothing to sum)
        return a
    padded = np.pad(a, [(0, 0)] * (a.ndim - 1) + [(radius, radius)])
    return sliding_window_view(padded, 2 * radius + 1, axis=-1).sum(axis=-1)


def _norm(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """bias + alpha * the window sums of squares."""
    return attrs["bias"] + attrs["alpha"] * _window_sum(x * x, attrs["depth_radius"])


def lrn(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = _wide(inputs[0])
    return (x * _norm(x, attrs) ** -attrs["beta"]).astype(inputs[0].dtype, copy=False)


def lrn_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """dy * N^-beta - 2 alpha beta x * S(dy * x * N^(-beta - 1)), N the norm, S the window sum
    (its own transpose: the window is symmetric)."""
    dy, x = _wide(inputs[0]), _wide(inputs[1])
    n = _norm(x, attrs)
    p = n ** -attrs["beta"]
    c = 2 * attrs["alpha"] * attrs["beta"]
    dx = dy * p - c * x * _window_sum(dy * x * p / n, attrs["depth_radius"])
    return dx.astype(inputs[0].dtype, copy=False)


KERNELS: dict[str, Callable[..., Any]] = {
    "FusedBatchNorm": fused_batch_norm,
    "LRN": lrn,
    "LRNGrad": lrn_grad,
}
