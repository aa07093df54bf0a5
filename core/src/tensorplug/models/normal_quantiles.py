"""Truncated normal samples from a seed, drawn through the standard normal's quantile function
(``ndtri``, written with ops in ``families/creation/ndtri.py``; re-exported here): a fixed number
of ops per call, no resampling. ``ndtri`` errs by up to 4e-4 in float32, so samples are computed
in float64 and cast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, float64
from tensorplug.families._common.convert import astype
from tensorplug.families.creation.ndtri import ndtri
from tensorplug.families.creation.random import uniform
from tensorplug.families.elementwise.ops import clip

__all__ = ["ndtri", "normal_cdf", "truncated_normal_samples"]


def normal_cdf(x: float) -> float:
    """The standard normal's CDF at a Python float (``-inf`` and ``inf`` allowed)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def truncated_normal_samples(shape: Sequence[int], seed: int, lower: float, upper: float,
                             dtype: DType, scale: float = 1.0) -> Tensor:
    """`scale` times standard normal samples conditioned on [lower, upper], as
    ``jax.random.truncated_normal``: a float64 uniform sample in [Phi(lower), Phi(upper))
    through ``ndtri``, clipped to the bounds, scaled, then cast to `dtype`."""
    u = uniform(tuple(shape), seed=seed, low=normal_cdf(lower), high=normal_cdf(upper), dtype=float64)
    samples = clip(ndtri(u), lower, upper) * scale
    return samples if dtype == float64 else astype(samples, dtype)
