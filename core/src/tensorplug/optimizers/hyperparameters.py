"""The checks of hyperparameters that optimizers share: each names the optimizer and the
hyperparameter, and says what it must be."""

from __future__ import annotations

import math
from typing import Any

from tensorplug.core.validate import shown
from tensorplug.errors import HyperparameterError

__all__ = ["real", "check_moments", "clipping_options"]


def real(optimizer: str, name: str, value: Any) -> float:
    """A hyperparameter given as a finite real number (an int, a float, a numpy scalar or a 0-d
    tensor holding one) as a float; HyperparameterError naming the optimizer for anything else
    (a bool, a str, None, a sequence, inf or NaN)."""
    number: Any = None
    if not isinstance(value, bool):
        if isinstance(value, (int, float)):
            number = value
        elif getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
            number = value.item()
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
        raise HyperparameterError(f"{optimizer}: {name} must be a finite real number, got "
                                  f"{shown(value)}")
    return float(number)


def check_moments(optimizer: str, beta1: float, beta2: float, epsilon: float) -> None:
    """Refuse the moment settings of an Adam-like optimizer out of range (betas in [0, 1),
    epsilon > 0) or not numbers, naming the optimizer."""
    beta1, beta2, epsilon = (real(optimizer, n, v) for n, v in
                             (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)))
    for name, beta in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 <= beta < 1.0:
            raise HyperparameterError(f"{optimizer}: {name} must be in [0, 1), got {beta!r}")
    if not epsilon > 0:
        raise HyperparameterError(f"{optimizer}: epsilon must be > 0, got {epsilon!r}")


def clipping_options(optimizer: str, **options: float | None) -> dict[str, float]:
    """The gradient clipping options given (``clip_norm``, ``clip_value``), checked: each a
    number > 0, or None for no clipping (left out of the result)."""
    out = {}
    for name, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise HyperparameterError(f"{optimizer}: {name} must be a number > 0 (or None: no clipping), "
                                      f"got {value!r}")
        out[name] = float(value)
    return out
