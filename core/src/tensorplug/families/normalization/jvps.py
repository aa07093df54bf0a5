"""JVP rules of the normalization family.

FusedBatchNorm, (x - mean) scale r + offset with r = (variance + epsilon)^-1/2, differentiated
in each of its five inputs. LRN, y = x N^-beta with N = bias + alpha S(x^2) (S the window sum
over the last axis): y' = t P - c x Q S(x t), P = N^-beta, Q = N^(-beta - 1), c = 2 alpha beta.
LRNGrad(dy, x) is the gradient of <dy, LRN(x)>: linear in dy (LRNGrad of the tangent), and its
derivative in x is the Hessian of that scalar, symmetric, so the x part of LRNGrad's gradient
run on x's tangent is its JVP; y is not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import kernel
from tensorplug.families._common.jvp_util import jvp_rule
from tensorplug.families.normalization.gradients import window_sum
from tensorplug.transforms.autodiff.tape import Entry, gradient_thunks

Tangents = tuple[Tensor | None, ...]


@jvp_rule("FusedBatchNorm")
def _fused_batch_norm(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                      attrs: Mapping[str, Any]) -> Tensor:
    x, scale, _, mean, variance = primals
    tx, tscale, toffset, tmean, tvariance = tangents
    r = 1.0 / tp.sqrt(variance + attrs["epsilon"])
    centered = x - mean
    parts = []
    if tx is not None or tmean is not None:
        shift = tx if tmean is None else (tp.negative(tmean) if tx is None else tx - tmean)
        parts.append(shift * (scale * r))
    if tscale is not None:
        parts.append(centered * (tscale * r))
    if toffset is not None:
        parts.append(toffset)
    if tvariance is not None:
        parts.append(centered * (scale * tvariance * r ** 3 * -0.5))
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    shape = outputs[0].shape
    return total if total.shape == shape else tp.broadcast_to(total, shape)


@jvp_rule("LRN")
def _lrn(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
         attrs: Mapping[str, Any]) -> Tensor:
    (x,), (t,) = primals, tangents
    r, alpha, beta = attrs["depth_radius"], attrs["alpha"], attrs["beta"]
    n = attrs["bias"] + alpha * window_sum(x * x, r)
    q = n ** (-beta - 1.0)
    return t * (q * n) - (2 * alpha * beta) * x * q * window_sum(x * t, r)


@jvp_rule("LRNGrad")
def _lrn_grad(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
              attrs: Mapping[str, Any]) -> Tensor | None:
    (_, x, y), (tdy, tx, _) = primals, tangents
    total = None
    if tdy is not None:
        total = kernel("LRNGrad", tdy, x, y, **attrs)
    if tx is not None:
        part = gradient_thunks(Entry("LRNGrad", primals, attrs, outputs), tx)[1]
        assert part is not None
        total = part() if total is None else total + part()
    return total
