"""Adam (Kingma & Ba), in the form TF.js core ships it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.runtime import ACTIVE
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.convert import caller
from tensorplug.families.optim.composed import adam_update_from_ops
from tensorplug.optimizers.hyperparameters import check_moments
from tensorplug.optimizers.optimizer import Hyperparameter, LearningRate, Optimizer, Step

__all__ = ["Adam"]

_ADAM_UPDATE = caller("AdamUpdate")


class Adam(Optimizer):
    """Per variable, first and second moments ``m = b1*m + (1-b1)*g``, ``v = b2*v + (1-b2)*g*g``
    and, at step t, ``param -= lr * (m / (1 - b1**t)) / (sqrt(v / (1 - b2**t)) + epsilon)``."""

    slot_names = ("m", "v")
    beta1 = Hyperparameter()
    beta2 = Hyperparameter()
    epsilon = Hyperparameter()

    def __init__(self, learning_rate: LearningRate = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-7, *,
                 clip_norm: float | None = None, clip_value: float | None = None) -> None:
        check_moments("Adam", beta1, beta2, epsilon)
        super().__init__(learning_rate, clip_norm=clip_norm, clip_value=clip_value,
                         beta1=float(beta1), beta2=float(beta2), epsilon=float(epsilon))

    def _scalars(self, step: Any, learning_rate: Any, hyperparameters: Mapping[str, Any]) -> dict[str, Any]:
        """The step's values: beta1 and beta2 (the fused AdamUpdate kernel's attributes), step_size
        and epsilon_hat (its 0-d inputs, which the composed ops read as tensors too)."""
        # lr * (m / c1) / (sqrt(v / c2) + eps) == (lr * sqrt(c2) / c1) * m / (sqrt(v) + eps * sqrt(c2))
        # with c1 = 1 - beta1**step, c2 = 1 - beta2**step: two ops fewer per variable
        b1, b2 = hyperparameters["beta1"], hyperparameters["beta2"]
        root_c2 = (1.0 - b2 ** step) ** 0.5
        return {"beta1": b1, "beta2": b2, "step_size": learning_rate * root_c2 / (1.0 - b1 ** step),
                "epsilon_hat": hyperparameters["epsilon"] * root_c2}

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        if ("AdamUpdate", param._backend.name) in ACTIVE.runtime.kernels.active:  # fused
            # (the step's values: tensors made once per step and dtype, traced in tp.jit)
            step_size, epsilon_hat = step.kernel_scalars(param, "step_size", "epsilon_hat")
            hyper = step.hyperparameters
            p, m, v = _ADAM_UPDATE((param, grad, slots["m"], slots["v"], step_size, epsilon_hat),
                                   {"beta1": hyper["beta1"], "beta2": hyper["beta2"]})
            return p, {"m": m, "v": v}
        c = step.scalars(param)
        hyper = step.hyperparameters
        p, m, v = adam_update_from_ops(param, grad, slots["m"], slots["v"], hyper["beta1"], hyper["beta2"],
                                       c["step_size"], c["epsilon_hat"])
        return p, {"m": m, "v": v}
