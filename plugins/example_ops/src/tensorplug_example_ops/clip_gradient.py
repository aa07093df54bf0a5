"""Path 4 of the guide, second example: ``tp.custom_grad`` for a gradient that differs from
the derivative on purpose.

``clip_gradient(x, lo, hi)`` is the identity on the forward pass; on the backward pass it
clips the gradient flowing through it to ``[lo, hi]`` (elementwise), a common guard against
exploding gradients in one part of a model. Autodiff of the identity would pass the gradient
unchanged, so the gradient has to be given by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorplug as tp

__all__ = ["clip_gradient"]


def clip_gradient(x: Any, lo: float, hi: float) -> tp.Tensor:
    """`x` unchanged; the gradient flowing back through it is clipped to ``[lo, hi]``."""
    if not lo <= hi:
        raise ValueError(f"clip_gradient: lo must not exceed hi, got lo={lo!r}, hi={hi!r}.")

    @tp.custom_grad
    def identity(x: tp.Tensor) -> tuple[tp.Tensor, Callable[[tp.Tensor], tp.Tensor]]:
        return x, lambda dy: tp.clip(dy, lo, hi)

    result: tp.Tensor = identity(x)
    return result
