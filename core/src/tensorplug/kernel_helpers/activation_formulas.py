"""Activation formulas over a backend's array namespace `xp` (numpy, jax.numpy): the Elu, Selu
and Gelu kernels of both backends compute with these (public through ``kernel_helpers``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["SELU_ALPHA", "SELU_SCALE", "elu_values", "gelu_slope", "gelu_values"]

#: SELU's constants (Klambauer et al. 2017), as TF.js and jax.nn use them
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715  # the tanh approximation's cubic term (Hendrycks and Gimpel; jax.nn.gelu)


def elu_values(xp: Any, x: Any, alpha: Any) -> Any:
    """x where x > 0, else alpha * expm1(x) (expm1 of min(x, 0): no overflow on the unused branch)."""
    return xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0)))


def _gelu_tanh(xp: Any, x: Any) -> tuple[Any, Any]:
    """(tanh(u), du/dx) of the tanh approximation's u = sqrt(2/pi) (x + 0.044715 x**3)."""
    t = xp.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x))
    return t, _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * x * x)


def gelu_values(xp: Any, x: Any, approximate: bool, phi: Callable[[Any], Any]) -> Any:
    """gelu(x): 0.5 x (1 + tanh(u)) if `approximate`, else x * phi(x), `phi` being the
    backend's standard normal CDF."""
    return 0.5 * x * (1 + _gelu_tanh(xp, x)[0]) if approximate else x * phi(x)


def gelu_slope(xp: Any, x: Any, approximate: bool, phi: Callable[[Any], Any]) -> Any:
    """d gelu(x) / dx, in the form `approximate` picks (GeluGrad's factor of dy)."""
    if approximate:
        t, du = _gelu_tanh(xp, x)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du
    return phi(x) + x * xp.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
