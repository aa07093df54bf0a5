"""AdamW (Loshchilov & Hutter): Adam with decoupled weight decay, as PyTorch documents it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import HyperparameterError
from tensorplug.optimizers.adam import Adam
from tensorplug.optimizers.hyperparameters import real
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Step

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam whose weight decay is decoupled from the gradient: each step first shrinks the
    parameter, ``param *= 1 - lr * weight_decay``, then takes Adam's step (``Adam``'s moments
    and bias correction). Defaults: ``learning_rate=0.001, beta1=0.9, beta2=0.999,
    epsilon=1e-7`` (as ``Adam``), ``weight_decay=0.01`` (PyTorch's)."""

    weight_decay = Hyperparameter()

    def __init__(self, learning_rate: LearningRate = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7, weight_decay: float = 0.01, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        weight_decay = real("AdamW", "weight_decay", weight_decay)
        if not weight_decay >= 0:
            raise HyperparameterError(f"AdamW: weight_decay must be >= 0, got {weight_decay!r}")
        super().__init__(learning_rate, beta1, beta2, epsilon, clip_norm=clip_norm, clip_value=clip_value)
        self._set_hyperparameters({"weight_decay": float(weight_decay)})

    def _scalars(self, step: Any, learning_rate: Any, hyperparameters: Mapping[str, Any]) -> dict[str, Any]:
        """Adam's step scalars and the decay factor ``1 - lr * weight_decay``."""
        scalars = super()._scalars(step, learning_rate, hyperparameters)
        return {**scalars, "decay": 1.0 - learning_rate * hyperparameters["weight_decay"]}

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        return super()._update(param * step.scalars(param)["decay"], grad, slots, step)
