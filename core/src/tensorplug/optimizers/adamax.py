"""Adamax (Kingma & Ba, the infinity-norm variant of Adam), as PyTorch documents it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families.elementwise.ops import abs as tp_abs
from tensorplug.families.elementwise.ops import maximum
from tensorplug.optimizers.hyperparameters import check_moments
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Optimizer, Step

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Per variable, ``m = b1*m + (1-b1)*g`` and the infinity norm ``u = max(b2*u, |g| + eps)``,
    and at step t ``param -= lr / (1 - b1**t) * m / u``. Defaults (PyTorch's and TF.js's):
    ``learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-8``."""

    slot_names = ("m", "u")
    beta1 = Hyperparameter()
    beta2 = Hyperparameter()
    epsilon = Hyperparameter()

    def __init__(self, learning_rate: LearningRate = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        check_moments("Adamax", beta1, beta2, epsilon)
        super().__init__(learning_rate, clip_norm=clip_norm, clip_value=clip_value,
                         beta1=float(beta1), beta2=float(beta2), epsilon=float(epsilon))

    def _scalars(self, step: Any, learning_rate: Any, hyperparameters: Mapping[str, Any]) -> dict[str, Any]:
        """The bias-corrected step size ``lr / (1 - beta1**t)``."""
        return {"step_size": learning_rate / (1.0 - hyperparameters["beta1"] ** step)}

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        hyper = step.hyperparameters
        m = slots["m"] * hyper["beta1"] + grad * (1.0 - hyper["beta1"])
        u = maximum(slots["u"] * hyper["beta2"], tp_abs(grad) + hyper["epsilon"])
        return param - m * step.scalars(param)["step_size"] / u, {"m": m, "u": u}
