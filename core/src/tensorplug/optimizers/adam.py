"""Adam (Kingma & Ba), in the form TF.js core ships it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..ops._convert import caller
from ..ops.elementwise import sqrt
from ..runtime import current
from ..tensor import Tensor
from .optimizer import LearningRate, Optimizer

__all__ = ["Adam"]

_ADAM_UPDATE = caller("AdamUpdate")


class Adam(Optimizer):
    """Per variable, first and second moments ``m = b1*m + (1-b1)*g``, ``v = b2*v + (1-b2)*g*g``
    and, at step t, ``param -= lr * (m / (1 - b1**t)) / (sqrt(v / (1 - b2**t)) + epsilon)``."""

    slot_names = ("m", "v")

    def __init__(self, learning_rate: LearningRate = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7) -> None:
        super().__init__(learning_rate)
        for name, beta in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Adam: {name} must be in [0, 1), got {beta!r}")
        if not epsilon > 0:
            raise ValueError(f"Adam: epsilon must be > 0, got {epsilon!r}")
        self.beta1, self.beta2, self.epsilon = float(beta1), float(beta2), float(epsilon)

    def _constants(self) -> dict[str, float]:
        return {"beta1": self.beta1, "one_minus_beta1": 1.0 - self.beta1, "beta2": self.beta2,
                "one_minus_beta2": 1.0 - self.beta2}

    def _hyper(self, step: int) -> dict[str, float]:
        # lr * (m / c1) / (sqrt(v / c2) + eps) == (lr * sqrt(c2) / c1) * m / (sqrt(v) + eps * sqrt(c2))
        # with c1 = 1 - beta1**step, c2 = 1 - beta2**step: two ops fewer per variable
        sqrt_c2 = math.sqrt(1.0 - self.beta2 ** step)
        return {"step_size": self.current_learning_rate(step) * sqrt_c2 / (1.0 - self.beta1 ** step),
                "epsilon_hat": self.epsilon * sqrt_c2}

    def _traced_hyper(self, step: Tensor, lr: Tensor) -> dict[str, Tensor]:
        sqrt_c2 = sqrt(1.0 - self.beta2 ** step)  # as _hyper, with ops
        return {"step_size": lr * sqrt_c2 / (1.0 - self.beta1 ** step), "epsilon_hat": self.epsilon * sqrt_c2}

    def _update(self, param: Tensor, grad: Tensor, slots: dict[str, Tensor],
                scalars: Mapping[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        hyper = self._step_hyper
        # the backend fuses the update; not under tp.jit, where the step's hyperparameters are
        # traced tensors (not attributes) and the compiler fuses the ops below anyway
        fused = ("AdamUpdate", param._backend.name) in current().kernels.active
        if fused and isinstance(hyper["step_size"], float):
            attrs = self._step_cache.get("AdamUpdate")  # one dict per step, shared by the variables
            if attrs is None:
                attrs = self._step_cache["AdamUpdate"] = {
                    "beta1": self.beta1, "beta2": self.beta2, "step_size": hyper["step_size"],
                    "epsilon_hat": hyper["epsilon_hat"]}
            p, m, v = _ADAM_UPDATE((param, grad, slots["m"], slots["v"]), attrs)
            return p, {"m": m, "v": v}
        c = scalars
        m = slots["m"] * c["beta1"] + grad * c["one_minus_beta1"]
        v = slots["v"] * c["beta2"] + grad * grad * c["one_minus_beta2"]
        return param - m * c["step_size"] / (sqrt(v) + c["epsilon_hat"]), {"m": m, "v": v}

    def _compiled_config(self) -> tuple[Any, ...]:
        return (self.beta1, self.beta2, self.epsilon)  # get_config without the learning rate

    def get_config(self) -> dict[str, Any]:
        return {"learning_rate": self.learning_rate, "beta1": self.beta1, "beta2": self.beta2,
                "epsilon": self.epsilon}
