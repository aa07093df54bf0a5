"""Activation kernels (Elu, EluGrad, ReluGrad, Selu, LeakyRelu, Prelu, Relu6, Step, Softplus,
Gelu, GeluGrad, LogSigmoid) and TF.js's elementwise extras (SquaredDifference, Rsqrt, AddN), as the
numpy backend computes them: same values, dtypes and shapes. Numbers that do not shape the
computation (alpha) are traced; Gelu's ``approximate`` is static."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax
from jax.scipy.special import erfc

from tensorplug.kernel_helpers import SELU_ALPHA, SELU_SCALE, elu_values, gelu_slope, gelu_values
from tensorplug_jax.kernels._jit import JaxKernel, binary, unary, with_attrs


def _elu(x: Any, alpha: Any) -> Any:
    return elu_values(jnp, x, alpha).astype(x.dtype)


def _elu_grad(dy: Any, y: Any, alpha: Any) -> Any:
    return jnp.where(y > 0, dy, (dy * (y + alpha)).astype(dy.dtype))


def _relu_grad(dy: Any, x: Any) -> Any:
    if dy.shape != x.shape:  # (a direct call: jnp.where would broadcast them)
        raise ValueError(f"dy of shape {dy.shape} and x of shape {x.shape} differ")
    return jnp.where(x > 0, dy, jnp.zeros((), dy.dtype))


def _selu(x: Any) -> Any:
    return (SELU_SCALE * elu_values(jnp, x, SELU_ALPHA)).astype(x.dtype)


def _leaky_relu(x: Any, alpha: Any) -> Any:
    return jnp.where(x >= 0, x, (alpha * x).astype(x.dtype))


def _prelu(x: Any, alpha: Any) -> Any:
    return jnp.where(x > 0, x, alpha * x)


def _relu6(x: Any) -> Any:
    return jnp.minimum(jnp.maximum(x, 0), 6)


def _step(x: Any, alpha: Any) -> Any:
    out = jnp.where(x > 0, jnp.ones_like(x), jnp.asarray(alpha).astype(x.dtype))
    return jnp.where(jnp.isnan(x), x, out)


def _wide(x: Any) -> Any:
    """Half floats computed in float32 (their float32 results round to the same values)."""
    return x.astype(jnp.float32) if x.dtype.itemsize < 4 else x


def _softplus(x: Any) -> Any:
    return jnp.logaddexp(_wide(x), 0).astype(x.dtype)


def _log_sigmoid(x: Any) -> Any:
    return (-jnp.logaddexp(-_wide(x), 0)).astype(x.dtype)


def _phi(x: Any) -> Any:
    return 0.5 * erfc(-x / math.sqrt(2))


def _gelu(x: Any, approximate: bool) -> Any:
    return gelu_values(jnp, _wide(x), approximate, _phi).astype(x.dtype)


def _gelu_grad(dy: Any, x: Any, approximate: bool) -> Any:
    return (_wide(dy) * gelu_slope(jnp, _wide(x), approximate, _phi)).astype(dy.dtype)


def _squared_difference(x: Any, y: Any) -> Any:
    d = x - y
    return d * jnp.conj(d) if jnp.issubdtype(d.dtype, jnp.complexfloating) else d * d


def _rsqrt(x: Any) -> Any:
    return lax.rsqrt(x) if jnp.issubdtype(x.dtype, jnp.floating) else 1 / jnp.sqrt(x)


def _add_n(*xs: Any) -> Any:
    out = xs[0]
    for x in xs[1:]:  # (one add per input tensor)
        out = out + x
    return out


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    "Elu": with_attrs(_elu, traced=("alpha",)),
    "EluGrad": with_attrs(_elu_grad, traced=("alpha",)),
    "ReluGrad": binary(_relu_grad),
    "Selu": unary(_selu),
    "LeakyRelu": with_attrs(_leaky_relu, traced=("alpha",)),
    "Prelu": binary(_prelu),
    "Relu6": unary(_relu6),
    "Step": with_attrs(_step, traced=("alpha",)),
    "Softplus": unary(_softplus),
    "Gelu": with_attrs(_gelu, static=("approximate",)),
    "GeluGrad": with_attrs(_gelu_grad, static=("approximate",)),
    "LogSigmoid": unary(_log_sigmoid),
    "SquaredDifference": binary(_squared_difference),
    "Rsqrt": unary(_rsqrt),
    "AddN": with_attrs(_add_n),
}
