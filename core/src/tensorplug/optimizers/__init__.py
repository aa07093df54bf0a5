"""Optimizers (``tp.optimizers``), as TF.js core ships them: ``SGD`` (with momentum) and
``Adam``; each has ``minimize(loss_fn, variables)``, ``apply_gradients(grads)`` and a
functional ``update(params, grads)`` for pytrees of tensors."""

from __future__ import annotations

from .adam import Adam
from .optimizer import Optimizer, VariableNotFoundError
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "VariableNotFoundError"]
