"""The standard normal's quantile function (``scipy.special.ndtri``) written with ops, and
truncated normal samples drawn through it: a fixed number of ops per call, no resampling.

tensorplug has no Ndtri kernel; the quantile is Acklam's rational approximation:
relative error below 1.15e-9 in float64; in float32 its polynomials lose digits (errors up to
4e-4 near p = 0.975), so samples are computed in float64 and cast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, float32, float64
from tensorplug.families._common.convert import astype
from tensorplug.families.creation.random import uniform
from tensorplug.families.elementwise.ops import clip, less, log, minimum, sqrt, where

__all__ = ["ndtri", "normal_cdf", "truncated_normal_samples"]

# Acklam's coefficients: the central region's numerator (A) and denominator (B), the tails' (C, D)
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00, 1.0)
_P_LOW = 0.02425


def _polynomial(coefficients: Sequence[float], x: Tensor) -> Tensor:
    """coefficients[0] x^n + ... + coefficients[n] by Horner's rule (at least two coefficients)."""
    result = x * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        result = result * x + c
    return result


def normal_cdf(x: float) -> float:
    """The standard normal's CDF at a Python float (``-inf`` and ``inf`` allowed)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def ndtri(p: Tensor) -> Tensor:
    """x with Phi(x) = p for a floating tensor `p` in (0, 1), elementwise (0 and 1 give large
    finite values: `p` is clipped to the dtype's smallest normal number first)."""
    tiny = float(2.0 ** -126) if p.dtype == float32 else 1e-300
    p = clip(p, tiny, 1.0 - tiny)
    q = p - 0.5
    r = q * q
    central = _polynomial(_A, r) * q / _polynomial(_B, r)
    t = sqrt(log(minimum(p, 1.0 - p)) * -2.0)
    tail = _polynomial(_C, t) / _polynomial(_D, t)
    tail = where(less(p, 0.5), tail, -tail)
    in_tail = less(minimum(p, 1.0 - p), _P_LOW)
    return where(in_tail, tail, central)


def truncated_normal_samples(shape: Sequence[int], seed: int, lower: float, upper: float,
                             dtype: DType, scale: float = 1.0) -> Tensor:
    """`scale` times standard normal samples conditioned on [lower, upper], as
    ``jax.random.truncated_normal``: a float64 uniform sample in [Phi(lower), Phi(upper))
    through ``ndtri``, clipped to the bounds, scaled, then cast to `dtype`."""
    u = uniform(tuple(shape), seed=seed, low=normal_cdf(lower), high=normal_cdf(upper), dtype=float64)
    samples = clip(ndtri(u), lower, upper) * scale
    return samples if dtype == float64 else astype(samples, dtype)
