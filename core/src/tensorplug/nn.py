"""``tp.nn``: neural-network ops (softmax, cross-entropy losses, one_hot, activations)."""

from __future__ import annotations

from .ops.nn import (
    log_softmax,
    logsumexp,
    one_hot,
    relu,
    sigmoid,
    softmax,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)

__all__ = [
    "log_softmax",
    "logsumexp",
    "one_hot",
    "relu",
    "sigmoid",
    "softmax",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]

from .ops.activations import *  # noqa: E402, F403
from .ops.activations import __all__ as _activations
from .ops.dropout import dropout  # noqa: E402

__all__ += [*_activations, "dropout"]
