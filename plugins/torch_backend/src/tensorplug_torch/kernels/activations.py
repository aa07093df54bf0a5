"""Activation kernels (Elu, EluGrad, ReluGrad, Selu, LeakyRelu, Prelu, Relu6, Step, Softplus,
Gelu, GeluGrad, LogSigmoid) and TF.js's elementwise extras (SquaredDifference, Rsqrt, AddN).

Each keeps its input's float dtype. Softplus, LogSigmoid and Gelu compute in float64 and round
once, as the numpy backend does (torch's softplus turns linear past a threshold); Gelu's
normal CDF is ``_phi``, from erfc (torch.special.ndtr loses the lower tail: 1.27981e-12 for
Phi(-7), which is 1.27981254e-12, and 0 for Phi(-14)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.extend import DirectCall
from tensorplug.kernel_helpers import SELU_ALPHA, SELU_SCALE, gelu_slope, gelu_values
from tensorplug_torch.kernels._kernel import Kernel


def _phi(x: torch.Tensor) -> torch.Tensor:
    """The standard normal CDF 0.5 * erfc(-x / sqrt(2)), accurate in both tails."""
    return 0.5 * torch.special.erfc(-x / math.sqrt(2))


def _wide(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float64)


def elu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return F.elu(inputs[0], attrs["alpha"])


def elu_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, y = inputs
    return torch.where(y > 0, dy, dy * (y + attrs["alpha"]))


_threshold_backward = torch.ops.aten.threshold_backward.default  # (torch's own ReLU backward)


def relu_grad_values(dy: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """dy where x > 0, else +0.0 (NaN and -0.0 of dy kept where it passes): torch's ReLU
    backward (dy unless x <= 0) on x with NaN read as 0, a third of a torch.where on x > 0
    (which builds a bool tensor). ReluGrad's direct call, so it checks the shapes itself (torch
    would broadcast silently)."""
    if dy.shape != x.shape:
        raise ValueError(f"dy of shape {tuple(dy.shape)} and x of shape {tuple(x.shape)} differ")
    return _threshold_backward(dy, torch.nan_to_num(x, 0.0), 0)


def relu_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return relu_grad_values(*inputs)


def selu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return SELU_SCALE * F.elu(inputs[0], SELU_ALPHA)


def leaky_relu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return torch.where(x >= 0, x, attrs["alpha"] * x)


def prelu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, alpha = inputs
    return torch.where(x > 0, x, alpha * x).to(x.dtype)


def relu6(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.clamp(inputs[0], 0, 6)


def step(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    out = torch.where(x > 0, torch.ones_like(x), torch.full_like(x, attrs["alpha"]))
    return torch.where(torch.isnan(x), x, out)


def softplus(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    wide = _wide(x)
    return torch.logaddexp(wide, torch.zeros_like(wide)).to(x.dtype)


def log_sigmoid(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    wide = _wide(x)
    return torch.negative(torch.logaddexp(-wide, torch.zeros_like(wide))).to(x.dtype)


def gelu(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return gelu_values(torch, _wide(x), attrs["approximate"], _phi).to(x.dtype)


def gelu_grad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dy, x = inputs
    slope = gelu_slope(torch, _wide(x), attrs["approximate"], _phi)
    return (_wide(dy) * slope).to(dy.dtype)


def squared_difference(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, y = inputs
    d = torch.sub(x, y)
    return d * torch.conj_physical(d) if d.is_complex() else d * d


def rsqrt(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.rsqrt(inputs[0])


def add_n(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    out = inputs[0].clone()
    for x in inputs[1:]:  # (one vectorized add per input tensor, in order, as the numpy backend)
        out += x
    return out


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Elu": elu,
    "EluGrad": elu_grad,
    "ReluGrad": Kernel(relu_grad, DirectCall(FLOAT_DTYPES, relu_grad_values)),
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
