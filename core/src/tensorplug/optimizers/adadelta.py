"""Adadelta (Zeiler), as PyTorch documents it and TF.js ships it."""

from __future__ import annotations

from collections.abc import Mapping

from tensorplug.core.tensor import Tensor
from tensorplug.errors import HyperparameterError
from tensorplug.families.elementwise.ops import sqrt
from tensorplug.optimizers.hyperparameters import real
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Optimizer, Step

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Per variable, running averages of squared gradients ``v = rho*v + (1-rho)*g*g`` and of
    squared updates ``u = rho*u + (1-rho)*d*d``, where ``d = sqrt(u + eps) / sqrt(v + eps) * g``
    (with the old ``u``), and ``param -= lr * d``. Defaults (PyTorch's): ``learning_rate=1.0,
    rho=0.9, epsilon=1e-6``."""

    slot_names = ("square_avg", "acc_delta")
    rho = Hyperparameter()
    epsilon = Hyperparameter()

    def __init__(self, learning_rate: LearningRate = 1.0, rho: float = 0.9, epsilon: float = 1e-6, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        rho, epsilon = real("Adadelta", "rho", rho), real("Adadelta", "epsilon", epsilon)
        if not 0.0 <= rho <= 1.0:
            raise HyperparameterError(f"Adadelta: rho must be in [0, 1], got {rho!r}")
        if not epsilon > 0:
            raise HyperparameterError(f"Adadelta: epsilon must be > 0, got {epsilon!r}")
        super().__init__(learning_rate, clip_norm=clip_norm, clip_value=clip_value,
                         rho=float(rho), epsilon=float(epsilon))

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        lr = step.scalars(param)["learning_rate"]
        rho, eps = step.hyperparameters["rho"], step.hyperparameters["epsilon"]
        square_avg = slots["square_avg"] * rho + grad * grad * (1.0 - rho)
        delta = sqrt(slots["acc_delta"] + eps) / sqrt(square_avg + eps) * grad
        acc_delta = slots["acc_delta"] * rho + delta * delta * (1.0 - rho)
        return param - delta * lr, {"square_avg": square_avg, "acc_delta": acc_delta}
