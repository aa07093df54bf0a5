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

__all__ = ["erfinv", "polynomial"]

_F32_BELOW_5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_F32_ABOVE_5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_F64_BELOW_6_25 = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_F64_BELOW_16 = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_F64_ABOVE_16 = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


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
        p = where(less(w, 5.0), polynomial(_F32_BELOW_5, w - 2.5), polynomial(_F32_ABOVE_5, sqrt(w) - 3.0))
    else:
        root = sqrt(w)
        tails = where(less(w, 16.0), polynomial(_F64_BELOW_16, root - 3.25),
                      polynomial(_F64_ABOVE_16, root - 5.0))
        p = where(less(w, 6.25), polynomial(_F64_BELOW_6_25, w - 3.125), tails)
    infinity = where(less(x, 0.0), float("-inf"), float("inf"))
    return where(equal(abs(x), 1.0), infinity, p * x)
