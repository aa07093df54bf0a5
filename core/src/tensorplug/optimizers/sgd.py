"""Stochastic gradient descent, with optional (Nesterov) momentum (TF.js's sgd and momentum)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tensor import Tensor
from .optimizer import LearningRate, Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """``param -= lr * grad``; with ``momentum`` m > 0 an accumulator ``a = m * a + grad`` is
    kept per variable and ``param -= lr * a`` (Nesterov: ``param -= lr * (grad + m * a)``)."""

    def __init__(self, learning_rate: LearningRate, momentum: float = 0.0, nesterov: bool = False) -> None:
        super().__init__(learning_rate)
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"SGD: momentum must be in [0, 1), got {momentum!r}")
        if nesterov and momentum == 0.0:
            raise ValueError("SGD: nesterov=True needs a momentum > 0")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self.slot_names = ("momentum",) if momentum else ()

    def _constants(self) -> dict[str, float]:
        return {"momentum": self.momentum}

    def _update(self, param: Tensor, grad: Tensor, slots: dict[str, Tensor],
                scalars: Mapping[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        lr = scalars["lr"]
        if not self.momentum:
            return param - grad * lr, slots
        m = scalars["momentum"]
        acc = slots["momentum"] * m + grad
        step = (grad + acc * m) if self.nesterov else acc
        return param - step * lr, {"momentum": acc}

    def _compiled_config(self) -> tuple[Any, ...]:
        return (self.momentum, self.nesterov)  # get_config without the learning rate

    def get_config(self) -> dict[str, Any]:
        return {"learning_rate": self.learning_rate, "momentum": self.momentum, "nesterov": self.nesterov}
