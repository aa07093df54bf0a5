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
from .ops.convolution import conv, conv_transpose, depthwise_conv, separable_conv  # noqa: E402

__all__ += ["conv", "conv_transpose", "depthwise_conv", "separable_conv"]
