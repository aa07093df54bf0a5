"""The inverse error function written with ops, as XLA computes it (and so ``jax.lax.erf_inv``,
through which ``jax.random.normal`` draws): Giles' polynomials in w = -log1p(-x**2), 9-term ones
in float32 (errors up to ~80 ulps in the tails, JAX's own), 17-23-term ones in float64. The
coefficients are XLA's (``chlo_legalize_to_hlo.cc``, as jax/_src/pallas/utils.py copies them);
each region's polynomial is evaluated apart and the right one selected, which gives each element
the same operations as XLA's per-element coefficient selects."""

from __future__ import annotations

from collections.abc import Sequence

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float32, float64
from tensorplug.families._common.convert import astype
from tensorplug.families.elementwise.ops import abs, equal, less, log1p, negative, sqrt, where
from tensorplug.kernel_helpers.random_constants import (
    ERFINV_F32_ABOVE_5,
    ERFINV_F32_BELOW_5,
    ERFINV_F64_ABOVE_16,
    ERFINV_F64_BELOW_6_25,
    ERFINV_F64_BELOW_16,
)

__all__ = ["erfinv", "polynomial"]


def polynomial(coefficients: Sequence[float], x: Tensor) -> Tensor:
    """coefficients[0] x^n + ... + coefficients[n] by Horner's rule (at least two coefficients)."""
    result = x * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        result = result * x + c
    return result


def erfinv(x: Tensor) -> Tensor:
    """erf^-1(x) for a real floating tensor `x` in [-1, 1] (+-inf at +-1), elementwise, as
    XLA's ErfInv; float16 and bfloat16 are computed in float32 and cast back."""
    if x.dtype not in (float32, float64):
        return astype(erfinv(astype(x, float32)), x.dtype)
    w = negative(log1p(negative(x * x)))
    if x.dtype == float32:
        p = where(less(w, 5.0), polynomial(ERFINV_F32_BELOW_5, w - 2.5),
                  polynomial(ERFINV_F32_ABOVE_5, sqrt(w) - 3.0))
    else:
        root = sqrt(w)
        tails = where(less(w, 16.0), polynomial(ERFINV_F64_BELOW_16, root - 3.25),
                      polynomial(ERFINV_F64_ABOVE_16, root - 5.0))
        p = where(less(w, 6.25), polynomial(ERFINV_F64_BELOW_6_25, w - 3.125), tails)
    infinity = where(less(x, 0.0), float("-inf"), float("inf"))
    return where(equal(abs(x), 1.0), infinity, p * x)
