"""Activation kernels (Elu, EluGrad, ReluGrad, Selu, LeakyRelu, Prelu, Relu6, Step, Softplus,
Gelu, GeluGrad, LogSigmoid) and TF.js's elementwise extras (SquaredDifference, Rsqrt, AddN).

Each keeps its input's float dtype. Gelu's exact form needs erf, which numpy lacks: ``_phi``
computes the normal CDF in float64 from a series (|z| < 2) and a continued fraction of erfc
(beyond), both to about 1e-13 relative, so the lower tail keeps its relative precision.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.extend import DirectCall
from tensorplug.kernel_helpers import SELU_ALPHA, SELU_SCALE, elu_values, gelu_slope, gelu_values
from tensorplug_numpy.kernels._kernel import Kernel
from tensorplug_numpy.kernels.elementwise import UNSIGNED_OF_SIZE

_SERIES_TERMS = 30  # erf's series below |z| = 2: converged to float64 there
_FRACTION_DEPTH = 50  # erfc's continued fraction from |z| = 2 on: converged to float64 there
_SPLIT = 2.0


def _erfc_fraction(z: np.ndarray) -> np.ndarray:
    """erfc(z) for z >= _SPLIT: exp(-z**2) / (sqrt(pi) (z + (1/2) / (z + 1 / (z + (3/2) / ...))))."""
    f = z.copy()
    for k in range(_FRACTION_DEPTH, 0, -1):
        f = z + (k / 2) / f
    return np.exp(-z * z) / (math.sqrt(math.pi) * f)


def _erf_series(z: np.ndarray) -> np.ndarray:
    """erf(z) for |z| < _SPLIT: 2/sqrt(pi) exp(-z**2) sum 2**n z**(2n+1) / (1 * 3 * ... (2n+1)),
    a series of positive terms (no cancellation)."""
    z2 = z * z
    term = z.copy()
    total = z.copy()
    for n in range(1, _SERIES_TERMS):
        term = term * (2 * z2 / (2 * n + 1))
        total += term
    return (2 / math.sqrt(math.pi)) * np.exp(-z2) * total


def _phi(x: np.ndarray) -> np.ndarray:
    """The standard normal CDF 0.5 * erfc(-x / sqrt(2)) of float64 x."""
    z = -x / math.sqrt(2)
    near = np.abs(z) < _SPLIT
    erfc_far = _erfc_fraction(np.where(near, _SPLIT, np.abs(z)))  # of |z|
    far = np.where(z > 0, erfc_far, 2 - erfc_far)
    return 0.5 * np.where(near, 1 - _erf_series(np.where(near, z, 0.0)), far)


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64)


def elu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return elu_values(np, x, attrs["alpha"]).astype(x.dtype, copy=False)


def elu_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, y = inputs
    return np.where(y > 0, dy, dy * (y + attrs["alpha"])).astype(dy.dtype, copy=False)


def selu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return (SELU_SCALE * elu_values(np, x, SELU_ALPHA)).astype(x.dtype, copy=False)


def leaky_relu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return np.where(x >= 0, x, attrs["alpha"] * x).astype(x.dtype, copy=False)


def prelu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, alpha = inputs
    return np.where(x > 0, x, alpha * x).astype(x.dtype, copy=False)


def relu6(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return np.minimum(np.maximum(x, 0), 6).astype(x.dtype, copy=False)


def step(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    out = np.where(x > 0, 1.0, attrs["alpha"])
    return np.where(np.isnan(x), x, out).astype(x.dtype, copy=False)


def softplus(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return np.logaddexp(_wide(x), 0.0).astype(x.dtype)


def log_sigmoid(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return np.negative(np.logaddexp(-_wide(x), 0.0)).astype(x.dtype)


def gelu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return gelu_values(np, _wide(x), attrs["approximate"], _phi).astype(x.dtype)


def gelu_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, x = inputs
    return (_wide(dy) * gelu_slope(np, _wide(x), attrs["approximate"], _phi)).astype(dy.dtype)


def relu_grad_values(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dy where x > 0, else +0.0, without a branch: dy's bits times the mask (exact for every
    value, NaN and -0.0 included); ReluGrad's direct call, so it checks the shapes itself."""
    if dy.shape != x.shape:
        raise ValueError(f"dy of shape {dy.shape} and x of shape {x.shape} differ")
    return np.multiply(dy.view(UNSIGNED_OF_SIZE[dy.itemsize]), x > 0).view(dy.dtype)


def relu_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return relu_grad_values(*inputs)


def squared_difference(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, y = inputs
    d = np.subtract(x, y)
    return d * np.conj(d) if d.dtype.kind == "c" else d * d


def rsqrt(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return (1 / np.sqrt(x)).astype(x.dtype, copy=False)


def add_n(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    out = np.array(inputs[0], copy=True)
    for x in inputs[1:]:  # (one vectorized add per input tensor)
        out += x
    return out


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Elu": elu,
    "EluGrad": elu_grad,
    "ReluGrad": Kernel(relu_grad, DirectCall(FLOAT_DTYPES, relu_grad_values), handles_warnings=True),
    "Selu": selu,
    "LeakyRelu": leaky_relu,
    "Prelu": prelu,
    "Relu6": relu6,
    "Step": step,
    "Softplus": softplus,
    "Gelu": gelu,
    "GeluGrad": gelu_grad,
    "LogSigmoid": log_sigmoid,
    "SquaredDifference": squared_difference,
    "Rsqrt": rsqrt,
    "AddN": add_n,
}
