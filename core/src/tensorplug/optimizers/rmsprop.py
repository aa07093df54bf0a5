"""RMSprop (Hinton), with momentum and the centered variant, as PyTorch documents it."""

from __future__ import annotations

from collections.abc import Mapping

from tensorplug.core.tensor import Tensor
from tensorplug.errors import HyperparameterError
from tensorplug.families.elementwise.ops import sqrt
from tensorplug.optimizers.hyperparameters import real
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Optimizer, Step

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Per variable, ``v = alpha*v + (1-alpha)*g*g``; centered, also ``a = alpha*a + (1-alpha)*g``
    and ``v~ = v - a*a`` (else ``v~ = v``); then ``param -= lr * g / (sqrt(v~) + eps)``, or with
    momentum ``b = momentum*b + g / (sqrt(v~) + eps)`` and ``param -= lr * b``. Defaults
    (PyTorch's): ``learning_rate=0.01, alpha=0.99, epsilon=1e-8, momentum=0.0,
    centered=False``. Momentum and centered are fixed when made (they decide the slots)."""

    alpha = Hyperparameter()
    epsilon = Hyperparameter()

    def __init__(self, learning_rate: LearningRate = 0.01, alpha: float = 0.99, epsilon: float = 1e-8,
                 momentum: float = 0.0, centered: bool = False, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        alpha, epsilon = real("RMSprop", "alpha", alpha), real("RMSprop", "epsilon", epsilon)
        momentum = real("RMSprop", "momentum", momentum)
        if not 0.0 <= alpha <= 1.0:
            raise HyperparameterError(f"RMSprop: alpha must be in [0, 1], got {alpha!r}")
        if not epsilon > 0:
            raise HyperparameterError(f"RMSprop: epsilon must be > 0, got {epsilon!r}")
        if not 0.0 <= momentum < 1.0:
            raise HyperparameterError(f"RMSprop: momentum must be in [0, 1), got {momentum!r}")
        super().__init__(learning_rate, clip_norm=clip_norm, clip_value=clip_value, alpha=float(alpha),
                         epsilon=float(epsilon), momentum=float(momentum), centered=bool(centered))
        # fixed: the state's structure
        self.slot_names = ("square_avg",) + (("grad_avg",) if centered else ()) + (
            ("momentum_buffer",) if momentum else ())

    @property
    def momentum(self) -> float:
        """The momentum (0.0: none), fixed when the optimizer is made."""
        return float(self.state.hyperparameters["momentum"])

    @property
    def centered(self) -> bool:
        """Whether the squared average is centered by the gradient's mean, fixed when made."""
        return bool(self.state.hyperparameters["centered"])

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        lr = step.scalars(param)["learning_rate"]
        hyper = step.hyperparameters
        alpha = hyper["alpha"]
        square_avg = slots["square_avg"] * alpha + grad * grad * (1.0 - alpha)
        new = {"square_avg": square_avg}
        avg = square_avg
        if "grad_avg" in slots:
            grad_avg = new["grad_avg"] = slots["grad_avg"] * alpha + grad * (1.0 - alpha)
            avg = square_avg - grad_avg * grad_avg
        direction = grad / (sqrt(avg) + hyper["epsilon"])
        if "momentum_buffer" in slots:
            direction = new["momentum_buffer"] = slots["momentum_buffer"] * hyper["momentum"] + direction
        return param - direction * lr, new
