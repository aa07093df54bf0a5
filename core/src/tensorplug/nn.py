"""``tp.nn``: neural-network ops (softmax, cross-entropy losses, one_hot, activations)."""

from __future__ import annotations

from .ops.layout import batch_to_space_nd, depth_to_space, space_to_batch_nd, space_to_depth
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
    "batch_to_space_nd", "depth_to_space", "space_to_batch_nd", "space_to_depth",
]
