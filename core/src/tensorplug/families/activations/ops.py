"""Activation ops of ``tp.nn`` with jax.nn's signatures and values: elu, selu, leaky_relu,
prelu, relu6, softplus, gelu, silu (swish), log_sigmoid, mish, step. Each takes real
numbers (integers and bools go to the default float dtype) and keeps a float input's dtype;
silu and mish are compositions of other ops."""

from __future__ import annotations

import math
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import caller, convert_pair, to_float
from tensorplug.families.activations.spec import prelu_alpha_shape
from tensorplug.families.elementwise.ops import multiply, sigmoid, tanh

__all__ = ["elu", "gelu", "leaky_relu", "log_sigmoid", "mish", "prelu", "relu6", "selu", "silu",
           "softplus", "step", "swish"]

_ELU = caller("Elu")
_SELU = caller("Selu")
_LEAKY_RELU = caller("LeakyRelu")
_PRELU = caller("Prelu")
_RELU6 = caller("Relu6")
_STEP = caller("Step")
_SOFTPLUS = caller("Softplus")
_GELU = caller("Gelu")
_LOG_SIGMOID = caller("LogSigmoid")


def real_float(x: Any, op: str) -> Tensor:
    """`x` as a tensor of a real floating dtype (integers and bools to the default float);
    DTypeError naming `op` for complex input."""
    x = to_float(x)
    if x._dtype.is_complex:
        raise DTypeError(f"{op} takes real numbers, got {x._dtype.name}; take tp.real(x) or tp.abs(x) "
                         "first.")
    return x


def finite(value: Any, op: str, arg: str) -> float:
    """A finite real Python float from a number argument; ShapeError naming `op` otherwise."""
    out = float(valid.number(value, op, arg))
    if not math.isfinite(out):
        raise ShapeError(f"{op}: {arg} must be a finite number, got {out}.")
    return out


def elu(x: Any, /, alpha: float = 1.0) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1) (jax.nn.elu)."""
    return _ELU((real_float(x, "elu"),), {"alpha": finite(alpha, "elu", "alpha")})


def selu(x: Any, /) -> Tensor:
    """scale * elu(x, alpha) with SELU's constants alpha ~ 1.6733, scale ~ 1.0507 (jax.nn.selu)."""
    return _SELU((real_float(x, "selu"),), {})


def leaky_relu(x: Any, /, negative_slope: float = 0.01) -> Tensor:
    """x where x >= 0, else negative_slope * x (jax.nn.leaky_relu)."""
    return _LEAKY_RELU((real_float(x, "leaky_relu"),),
                       {"alpha": finite(negative_slope, "leaky_relu", "negative_slope")})


def prelu(x: Any, alpha: Any, /) -> Tensor:
    """x where x > 0, else alpha * x, with a tensor `alpha` (learned slopes, e.g. one per
    channel) that broadcasts to x's shape (TF.js's prelu); differentiable in both."""
    x, alpha = convert_pair(real_float(x, "prelu"), alpha, "prelu")
    x, alpha = real_float(x, "prelu"), real_float(alpha, "prelu")
    prelu_alpha_shape(x.shape, alpha.shape, "prelu")
    return _PRELU((x, alpha), {})


def relu6(x: Any, /) -> Tensor:
    """min(max(x, 0), 6) (jax.nn.relu6)."""
    return _RELU6((real_float(x, "relu6"),), {})


def softplus(x: Any, /) -> Tensor:
    """log(1 + exp(x)), computed as logaddexp(x, 0): no overflow (jax.nn.softplus)."""
    return _SOFTPLUS((real_float(x, "softplus"),), {})


def gelu(x: Any, /, approximate: bool = True) -> Tensor:
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3))) when `approximate` (jax.nn.gelu)."""
    return _GELU((real_float(x, "gelu"),), {"approximate": valid.flag(approximate, "gelu", "approximate")})


def silu(x: Any, /) -> Tensor:
    """x * sigmoid(x) (jax.nn.silu; also called swish)."""
    x = real_float(x, "silu")
    return multiply(x, sigmoid(x))


swish = silu


def log_sigmoid(x: Any, /) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), stable for large |x| (jax.nn.log_sigmoid)."""
    return _LOG_SIGMOID((real_float(x, "log_sigmoid"),), {})


def mish(x: Any, /) -> Tensor:
    """x * tanh(softplus(x)) (jax.nn.mish)."""
    x = real_float(x, "mish")
    return multiply(x, tanh(_SOFTPLUS((x,), {})))


def step(x: Any, /, alpha: float = 0.0) -> Tensor:
    """1 where x > 0, else alpha; NaN stays NaN (TF.js's step). Its gradient is zero."""
    return _STEP((real_float(x, "step"),), {"alpha": finite(alpha, "step", "alpha")})
