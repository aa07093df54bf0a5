"""``tp.nn.Dropout``: inverted dropout in training mode, the identity in eval mode; a new mask
at every call, drawn from the layer's seed and the number of masks it drew before."""

from __future__ import annotations

from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.convert import asarray
from tensorplug.models.layers import layer_checks as check
from tensorplug.models.module import Module
from tensorplug.ops.dropout import dropout

__all__ = ["Dropout"]

_STRIDE = 1_000_003  # (the seeds of two layers with neighbouring seeds stay apart)


class _Draws:
    """How many masks a dropout layer drew: a counter shared by the layer and its copies
    (``tp.grad`` over a model rebuilds the layer around new tensors, with the same counter), so
    every call draws a new mask. Compared by identity."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __repr__(self) -> str:
        return f"Draws({self.count})"


class Dropout(Module):
    """``keras.layers.Dropout(rate)``: in training mode each element of the input is zeroed with
    probability `rate` (in [0, 1)) and the others are scaled by 1 / (1 - rate)
    (``tp.nn.dropout``); in eval mode (or ``training=False``) the input is returned as it is.
    Each call draws a new mask, from `seed` (default: the next of ``tp.nn.set_seed``'s
    sequence) and the number of calls before it. Output shape = input shape.

    Under ``tp.jit`` the mask's seed is fixed when the step is traced: every compiled call
    drops the same elements."""

    def __init__(self, rate: float, *, seed: int | None = None) -> None:
        self.rate = check.rate(rate, "Dropout")
        self.seed = check.layer_seed(seed, "Dropout")
        self._draws = _Draws()

    def forward(self, x: Any, training: bool | None = None) -> Tensor:
        """x with elements dropped (training) or x itself (eval); `training` overrides the mode."""
        if not check.training_mode(training, self.training) or self.rate == 0.0:
            return asarray(x)
        return _dropped(self, x)


def _dropped(layer: Dropout, x: Any) -> Tensor:
    """x through ``tp.nn.dropout`` with the layer's next mask: the one place a mask is drawn."""
    seed = (layer.seed + layer._draws.count * _STRIDE) % 2**31
    layer._draws.count += 1
    return dropout(x, layer.rate, seed=seed)
