"""Stochastic gradient descent, with optional (Nesterov) momentum (TF.js's sgd and momentum)."""

from __future__ import annotations

from collections.abc import Mapping

from tensorplug.core.tensor import Tensor
from tensorplug.errors import HyperparameterError
from tensorplug.optimizers.hyperparameters import real
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Optimizer, Step

__all__ = ["SGD"]


class SGD(Optimizer):
    """``param -= lr * grad``; with ``momentum`` m > 0 an accumulator ``a = m * a + grad`` is
    kept per variable and ``param -= lr * a`` (Nesterov: ``param -= lr * (grad + m * a)``)."""

    nesterov = Hyperparameter(bool)

    def __init__(self, learning_rate: LearningRate, momentum: float = 0.0, nesterov: bool = False, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        momentum = real("SGD", "momentum", momentum)
        if not 0.0 <= momentum < 1.0:
            raise HyperparameterError(f"SGD: momentum must be in [0, 1), got {momentum!r}")
        if nesterov and momentum == 0.0:
            raise HyperparameterError("SGD: nesterov=True needs a momentum > 0")
        super().__init__(learning_rate, clip_norm=clip_norm, clip_value=clip_value,
                         momentum=float(momentum), nesterov=bool(nesterov))
        self.slot_names = ("momentum",) if momentum else ()  # fixed: the state's structure

    @property
    def momentum(self) -> float:
        """The momentum (0.0: plain SGD); setting a nonzero one on an SGD made without momentum
        raises HyperparameterError."""
        return float(self.state.hyperparameters["momentum"])

    @momentum.setter
    def momentum(self, value: float) -> None:
        if value and not self.slot_names:
            raise HyperparameterError("SGD: this optimizer was made without momentum, so it keeps no "
                             "accumulators; create SGD(learning_rate, momentum=...) to use one.")
        self._set_hyperparameters({"momentum": float(value)})

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        lr = step.scalars(param)["learning_rate"]
        if not self.slot_names:
            return param - grad * lr, dict(slots)
        hyper = step.hyperparameters
        m = hyper["momentum"]
        acc = slots["momentum"] * m + grad
        direction = (grad + acc * m) if hyper["nesterov"] else acc
        return param - direction * lr, {"momentum": acc}
