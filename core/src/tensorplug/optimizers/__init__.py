"""Optimizers (``tp.optimizers``), as TF.js core ships them and PyTorch documents them:
``SGD`` (with momentum), ``Adam``, ``AdamW``, ``Adagrad``, ``Adadelta``, ``Adamax``,
``RMSprop``; learning-rate schedules (``schedules``) and gradient clipping. Each optimizer has
``minimize(loss_fn, variables)``, ``apply_gradients(grads)`` and a functional
``update(params, grads)`` for pytrees of tensors. An optimizer's state is explicit:
``opt.state``, an ``OptimizerState`` (see ``Optimizer`` for writing one)."""

from __future__ import annotations

from . import schedules
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .clipping import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm
from .optimizer import Hyperparameter, Optimizer, Step, VariableNotFoundError
from .rmsprop import RMSprop
from .sgd import SGD
from .state import OptimizerState

__all__ = ["Optimizer", "OptimizerState", "Hyperparameter", "Step", "SGD", "Adam", "VariableNotFoundError",
           "AdamW", "Adagrad", "Adadelta", "Adamax", "RMSprop", "schedules",
           "clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]
