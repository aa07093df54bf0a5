"""Adagrad (Duchi et al.), as PyTorch documents it, with TF.js's initial accumulator."""

from __future__ import annotations

from collections.abc import Mapping

from tensorplug.core.tensor import Tensor
from tensorplug.errors import HyperparameterError
from tensorplug.families.elementwise.ops import sqrt
from tensorplug.optimizers.hyperparameters import real
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Optimizer, Step

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Per variable, the sum of squared gradients ``s = initial_accumulator_value + sum(g*g)``
    and ``param -= lr * g / (sqrt(s) + epsilon)``. Defaults: ``learning_rate=0.01,
    initial_accumulator_value=0.1`` (TF.js's), ``epsilon=1e-10`` (PyTorch's). The slot
    ``sum_squares`` holds ``sum(g*g)`` (zeros before the first step)."""

    slot_names = ("sum_squares",)
    initial_accumulator_value = Hyperparameter()
    epsilon = Hyperparameter()

    def __init__(self, learning_rate: LearningRate = 0.01, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-10, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        initial_accumulator_value = real("Adagrad", "initial_accumulator_value", initial_accumulator_value)
        epsilon = real("Adagrad", "epsilon", epsilon)
        if not initial_accumulator_value >= 0:
            raise HyperparameterError("Adagrad: initial_accumulator_value must be >= 0, got "
                                      f"{initial_accumulator_value!r}")
        if not epsilon >= 0 or (epsilon == 0 and initial_accumulator_value == 0):
            raise HyperparameterError(f"Adagrad: epsilon must be >= 0 (> 0 when initial_accumulator_value is "
                                      f"0, else the first step divides by zero), got {epsilon!r}")
        super().__init__(learning_rate, clip_norm=clip_norm, clip_value=clip_value,
                         initial_accumulator_value=float(initial_accumulator_value), epsilon=float(epsilon))

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        lr = step.scalars(param)["learning_rate"]
        hyper = step.hyperparameters
        sum_squares = slots["sum_squares"] + grad * grad
        denominator = sqrt(sum_squares + hyper["initial_accumulator_value"]) + hyper["epsilon"]
        return param - grad * lr / denominator, {"sum_squares": sum_squares}
