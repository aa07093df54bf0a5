"""Optimizers (``tp.optimizers``), as TF.js core ships them: ``SGD`` (with momentum) and
``Adam``; each has ``minimize(loss_fn, variables)``, ``apply_gradients(grads)`` and a
functional ``update(params, grads)`` for pytrees of tensors. An optimizer's state is explicit:
``opt.state``, an ``OptimizerState`` (see ``Optimizer`` for writing one)."""

from __future__ import annotations

from .adam import Adam
from .optimizer import Hyperparameter, Optimizer, Step, VariableNotFoundError
from .sgd import SGD
from .state import OptimizerState

__all__ = ["Optimizer", "OptimizerState", "Hyperparameter", "Step", "SGD", "Adam", "VariableNotFoundError"]
