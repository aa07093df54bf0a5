"""Reference values of the normalization family: FusedBatchNorm (per-channel and full-rank
parameters), LRN and LRNGrad (the window sums by a loop over the neighbours; LRNGrad as the
explicit Jacobian-vector product of LRN's definition). Few cases: float32 and float64, with
attribute variants, an empty and a size-1 input on float64, one small case in each other dtype."""

from __future__ import annotations

import numpy as np

from tensorplug.dtypes import float16, float32, float64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references._cover import with_every_dtype

#: (the kit's gradient check takes the cases of at most 40 elements: the first only, to save time)
_BN = [((2, 3, 4), (4,)), ((2, 3, 2, 3), (1, 3, 1, 1)), ((4, 11), ()), ((0, 3), (3,)), ((1, 1), (1,))]


def _bn_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in (float64, float32, float16):
        for i, (xs, ps) in enumerate(_BN if d is float64 else _BN[:1]):
            x = sample(xs, d, key=(spec.name, i, "x"))
            scale, offset, mean = (sample(ps, d, key=(spec.name, i, k)) for k in ("s", "o", "m"))
            variance = sample(ps, d, Domain(0.1, 2.0), key=(spec.name, i, "v"))
            out.append(Case((x, scale, offset, mean, variance), {"epsilon": 1e-3 if i != 1 else 0.5}))
    return with_every_dtype(spec, out)


def _bn_bad(spec: KernelSpec) -> list[BadCase]:
    x, p = sample((2, 3), float32), sample((2,), float32)
    return [BadCase((x, p, p, p, p), error=ShapeError, why="parameters that do not broadcast to x")]


@reference("FusedBatchNorm", _bn_cases, _bn_bad)
def _fused_batch_norm(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, mean: np.ndarray,
                      variance: np.ndarray, epsilon: float) -> np.ndarray:
    return (x - mean) / np.sqrt(variance + epsilon) * scale + offset


def _window_sum(a: np.ndarray, radius: int) -> np.ndarray:
    out = np.zeros_like(a)
    c = a.shape[-1]
    for k in range(-radius, radius + 1):  # out[..., i] += a[..., i + k] where 0 <= i + k < c
        lo, hi = max(0, -k), min(c, c - k)
        if lo < hi:
            out[..., lo:hi] += a[..., lo + k:hi + k]
    return out


_LRN = [((2, 1, 5), {"depth_radius": 2, "bias": 1.0, "alpha": 0.5, "beta": 0.75}),
        ((3, 14), {"depth_radius": 1, "bias": 2.0, "alpha": 0.1, "beta": 0.5}),
        ((7, 1, 6), {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}),
        ((0, 3), {"depth_radius": 1, "bias": 1.0, "alpha": 1.0, "beta": 0.5}),
        ((1, 1), {"depth_radius": 1, "bias": 1.0, "alpha": 1.0, "beta": 0.5})]


def _lrn_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in (float64, float32):
        for i, (shape, attrs) in enumerate(_LRN if d is float64 else _LRN[:1]):
            x = sample(shape, d, key=(spec.name, i, "x"))
            if spec.name == "LRN":
                out.append(Case((x,), attrs))
            else:
                y = _lrn(x.astype(np.float64), **attrs).astype(d.numpy)
                out.append(Case((sample(shape, d, key=(spec.name, i, "dy")), x, y), attrs))
    return with_every_dtype(spec, out)


@reference("LRN", _lrn_cases)
def _lrn(x: np.ndarray, depth_radius: int, bias: float, alpha: float, beta: float) -> np.ndarray:
    return x / (bias + alpha * _window_sum(x * x, depth_radius)) ** beta


@reference("LRNGrad", _lrn_cases)
def _lrn_grad(dy: np.ndarray, x: np.ndarray, y: np.ndarray, depth_radius: int, bias: float, alpha: float,
              beta: float) -> np.ndarray:
    """sum_i dy_i d y_i / d x_j, the Jacobian of y_i = x_i N_i^-beta built entry by entry along
    the last axis (N_i = bias + alpha * sum of x_k^2 over |k - i| <= r)."""
    c = x.shape[-1]
    n = bias + alpha * _window_sum(x * x, depth_radius)
    out = np.zeros_like(x)
    for i in range(c):
        for j in range(max(0, i - depth_radius), min(c, i + depth_radius + 1)):
            dyi_dxj = -beta * x[..., i] * n[..., i] ** (-beta - 1) * 2 * alpha * x[..., j]
            if i == j:
                dyi_dxj = dyi_dxj + n[..., i] ** -beta
            out[..., j] += dy[..., i] * dyi_dxj
    return out
