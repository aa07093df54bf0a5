"""``tp.losses``: loss functions of ``(labels, predictions)`` with ``reduction="mean"`` (the
default), ``"sum"`` or ``"none"``; the softmax (logits) cross-entropies are ``tp.nn``'s.

Every loss takes labels first, then predictions, of one shape (``sparse_softmax_cross_entropy``:
integer labels of the logits' shape without the class axis). Elementwise losses give one value
per element with "none" and average every element with "mean" (torch.nn.functional's
convention); losses of distributions (the categorical cross-entropies, cosine similarity, KL
divergence) reduce the class axis first and give one value per example.
"""

from __future__ import annotations

from tensorplug.families.nn.ops import softmax_cross_entropy, sparse_softmax_cross_entropy
from tensorplug.ops.losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    categorical_cross_entropy,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_squared_error,
)

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "categorical_cross_entropy",
    "cosine_similarity",
    "hinge",
    "huber",
    "kl_divergence",
    "log_cosh",
    "mean_absolute_error",
    "mean_squared_error",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]
