"""Default gradients of the normalization family, written with ops (so they differentiate
again): FusedBatchNorm's for all five inputs (each summed back to its broadcast shape), LRN's
through the LRNGrad kernel (as TF's), and LRNGrad's own, for second order and beyond.

LRNGrad(dy, x) = dy P - c x S(dy x Q), with N = bias + alpha S(x^2), P = N^-beta,
Q = N^(-beta - 1), c = 2 alpha beta and S the window sum over the last axis (symmetric, so its
own transpose). For an incoming gradient g, with u = S(g x):
  d/d dy: g P - c x Q u
  d/d x:  -c x S(g dy Q) - c g S(dy x Q) - c u dy Q + 2 alpha c (beta + 1) x S(u dy x Q / N)
and nothing for y (TF's signature passes it; the value is recomputed from x).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel, slice_axis, unbroadcast

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("FusedBatchNorm", inputs=("x", "scale", "offset", "mean", "variance"))
def _fused_batch_norm(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, scale, offset, mean, variance = saved
    inv = 1.0 / tp.sqrt(variance + attrs["epsilon"])

    def dx() -> Tensor:
        return unbroadcast(dy * (scale * inv), x.shape)

    def dmean() -> Tensor:
        return unbroadcast(-(dy * (scale * inv)), mean.shape)

    def dvariance() -> Tensor:
        return unbroadcast(dy * (x - mean) * (scale * -0.5 * inv ** 3), variance.shape)

    return {"x": dx, "scale": lambda: unbroadcast(dy * ((x - mean) * inv), scale.shape),
            "offset": lambda: unbroadcast(dy, offset.shape), "mean": dmean, "variance": dvariance}


@gradient("LRN", inputs=("x",), outputs=("out",))
def _lrn(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return {"x": lambda: kernel("LRNGrad", dy, x, y, **attrs)}


def window_sum(a: Tensor, radius: int) -> Tensor:
    """The sum over a[..., c - radius:c + radius + 1] (zeros past the ends), with ops: the
    difference of a cumulative sum."""
    if radius == 0:
        return a
    c = a.shape[-1]
    padded = tp.pad(a, [(0, 0)] * (a.ndim - 1) + [(radius + 1, radius)])
    total = tp.cumulative_sum(padded, axis=-1)
    axis = a.ndim - 1
    return slice_axis(total, axis, 2 * radius + 1, 2 * radius + 1 + c) - slice_axis(total, axis, 0, c)


@gradient("LRNGrad", inputs=("dy", "x", "y"))
def _lrn_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    dy, x, y = saved
    r, alpha, beta = attrs["depth_radius"], attrs["alpha"], attrs["beta"]
    c = 2 * alpha * beta

    @functools.cache
    def shared() -> tuple[Tensor, Tensor, Tensor]:
        n = attrs["bias"] + alpha * window_sum(x * x, r)
        return n, n ** (-beta - 1.0), window_sum(g * x, r)

    def ddy() -> Tensor:
        n, q, u = shared()
        return g * (q * n) - c * x * q * u

    def dx() -> Tensor:
        n, q, u = shared()
        dyq = dy * q
        return (-c * x * window_sum(g * dyq, r) - c * g * window_sum(dyq * x, r) - c * u * dyq
                + (2 * alpha * c * (beta + 1.0)) * x * window_sum(u * dyq * x / n, r))

    return {"dy": ddy, "x": dx, "y": lambda: tp.zeros_like(y)}
