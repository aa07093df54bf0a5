"""Optimizers (``tp.optimizers``), as TF.js core ships them and PyTorch documents them:
``SGD`` (with momentum), ``Adam``, ``AdamW``, ``Adagrad``, ``Adadelta``, ``Adamax``,
``RMSprop``; learning-rate schedules (``schedules``) and gradient clipping. Each optimizer has
``minimize(loss_fn, variables)``, ``apply_gradients(grads)`` and a functional
``update(params, grads)`` for pytrees of tensors, the optimizer keeping the state; and optax's
explicit form, the caller keeping it: ``state = opt.init(params)``, then
``params, state = opt.apply(state, params, grads)`` (pure: ``tp.jit(step)(params, state, batch)``).
An optimizer's state is an ``OptimizerState`` (``opt.state``; see ``Optimizer`` for writing one)."""

from __future__ import annotations

from tensorplug.optimizers import schedules
from tensorplug.optimizers.adadelta import Adadelta
from tensorplug.optimizers.adagrad import Adagrad
from tensorplug.optimizers.adam import Adam
from tensorplug.optimizers.adamax import Adamax
from tensorplug.optimizers.adamw import AdamW
from tensorplug.optimizers.clipping import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm
from tensorplug.optimizers.optimizer import Hyperparameter, Optimizer, Step, VariableNotFoundError
from tensorplug.optimizers.rmsprop import RMSprop
from tensorplug.optimizers.sgd import SGD
from tensorplug.optimizers.state import OptimizerState

__all__ = ["Optimizer", "OptimizerState", "Hyperparameter", "Step", "SGD", "Adam", "VariableNotFoundError",
           "AdamW", "Adagrad", "Adadelta", "Adamax", "RMSprop", "schedules",
           "clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]
