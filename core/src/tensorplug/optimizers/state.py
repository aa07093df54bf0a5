"""An optimizer's state, as an explicit tree (optax's ``init``/``update`` idea): what every step
reads and replaces, and what ``tp.jit`` carries in and out of a compiled step like a Variable's
value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.tree_util import register_dataclass

__all__ = ["OptimizerState", "SlotKey"]

#: slots are kept per Variable name (``minimize``, ``apply_gradients``), or per leaf index of the
#: parameter tree (the functional ``update``)
SlotKey = str | int


@register_dataclass
@dataclass(frozen=True)
class OptimizerState:
    """All of an optimizer's state; a step makes a new one (nothing in it is changed in place).

    - ``iterations``: the number of steps taken, an int64 scalar tensor.
    - ``hyperparameters``: by name, what the update rule reads besides the slots: the learning
      rate (``"learning_rate"``) as a float64 scalar tensor, or a schedule (a callable of the
      step number); the optimizer's settings (Adam's ``beta1``, SGD's ``nesterov``, ...) as
      Python numbers.
    - ``slots``: per variable name (or leaf index of the functional ``update``'s parameter
      tree), one tensor per slot name (Adam's ``m`` and ``v``), of the parameter's shape and
      dtype; zeros before the first step.

    A pytree (``tp.tree_util``) of its three fields. Under ``tp.jit`` the tensors are traced
    and the other leaves (the settings, a schedule) compiled in: setting a new learning rate
    between compiled calls is only a new value, a new setting or schedule compiles again.
    """

    iterations: Tensor
    hyperparameters: Mapping[str, Any]
    slots: Mapping[SlotKey, Mapping[str, Tensor]]
