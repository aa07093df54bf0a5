"""``tp.nn.Dropout``: inverted dropout in training mode, the identity in eval mode; a new mask
at every call, drawn from the layer's random key (``tp.random``'s keys), which it splits at each
call, eagerly and under ``tp.jit`` alike."""

from __future__ import annotations

from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.families._common.convert import asarray
from tensorplug.families.activations.ops import real_float
from tensorplug.families.creation.key_samplers import bernoulli
from tensorplug.families.creation.keys import key, split
from tensorplug.families.elementwise.ops import multiply, where
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers import inputs
from tensorplug.models.module import Module

__all__ = ["Dropout"]


class _KeyState:
    """A dropout layer's random key, in a Variable that the layer and its copies share
    (``tp.grad`` over a model rebuilds the layer around new tensors, with the same state): not a
    child of the model, so neither trained, saved nor differentiated. Compared by identity."""

    __slots__ = ("key",)

    def __init__(self, seed: int | Tensor) -> None:
        self.key = Variable(seed if isinstance(seed, Tensor) else key(seed), trainable=False)

    def __repr__(self) -> str:
        return f"KeyState({self.key.name})"


class Dropout(Module):
    """``keras.layers.Dropout(rate)``: in training mode each element of the input is zeroed with
    probability `rate` (in [0, 1)) and the others are scaled by 1 / (1 - rate); in eval mode
    (or ``training=False``) the input is returned as it is. Output shape = input shape.

    Each call draws a new mask: the layer keeps a random key (``tp.random.key(seed)``, `seed`
    default the next of ``tp.nn.set_seed``'s sequence) in a Variable and splits it at each call,
    so a step compiled with ``tp.jit`` drops other elements at every call, as the eager one.
    ``key=`` (a ``tp.random.key``) starts it from that key instead of a seed (``seed`` is None
    then)."""

    def __init__(self, rate: float, *, seed: int | None = None, key: Tensor | None = None) -> None:
        self.rate = args.rate(rate, "Dropout")
        source = args.seed_or_key(seed, key, "Dropout")
        self.seed = None if isinstance(source, Tensor) else source
        self._state = _KeyState(source)

    def forward(self, x: Any, training: bool | None = None) -> Tensor:
        """x with elements dropped (training) or x itself (eval); `training` overrides the mode."""
        if not inputs.training_mode(training, self.training) or self.rate == 0.0:
            return asarray(x)
        return _dropped(self, real_float(x, "Dropout"))


def _dropped(layer: Dropout, x: Tensor) -> Tensor:
    """x with the layer's next mask applied: the one place a mask is drawn."""
    state = layer._state.key
    keys = split(state)
    state.assign(keys[1])
    keep = bernoulli(keys[0], 1.0 - layer.rate, x.shape)
    return where(keep, multiply(x, 1.0 / (1.0 - layer.rate)), 0.0)
