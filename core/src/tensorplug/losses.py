"""``tp.losses``: loss functions of ``(labels, predictions)`` with ``reduction="mean"`` (the
default), ``"sum"`` or ``"none"``; the softmax (logits) cross-entropies are ``tp.nn``'s,
re-exported here.

Every loss takes ``(labels, predictions)`` in that order (as
``tp.nn.softmax_cross_entropy(labels, logits)`` and Keras's ``(y_true, y_pred)``;
torch.nn.functional takes ``(input, target)``, the other way round), of one shape
(``sparse_softmax_cross_entropy``: integer labels of the logits' shape without the class axis).
Elementwise losses (squared and absolute error, huber, binary cross-entropies, hinge,
log-cosh) give one value per element with "none", and "mean" averages every element, as
torch.nn.functional does (Keras averages the last axis first: the same mean, a smaller sum).
Losses of distributions (categorical cross-entropy, cosine similarity, KL divergence) reduce
their class axis (``axis``, the last by default) first and give one value per example.
"""

from __future__ import annotations

import math
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import ShapeError
from tensorplug.families._common.convert import astype
from tensorplug.families.activations.arithmetic import squared_difference
from tensorplug.families.activations.ops import finite, real_float, softplus
from tensorplug.families.elementwise.ops import abs as _abs
from tensorplug.families.elementwise.ops import (
    clip,
    divide,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    sqrt,
    subtract,
)
from tensorplug.families.nn.ops import _check_reduction, softmax_cross_entropy, sparse_softmax_cross_entropy
from tensorplug.families.reductions.ops import mean as _mean
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.kernels.shape_rules import normalize_axis

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

#: Keras's epsilon: probabilities are clipped to [EPSILON, 1 - EPSILON] before their logarithm
EPSILON = 1e-7
_NORM_FLOOR = 1e-12  # cosine similarity: squared norms below this count as this (Keras's l2_normalize)
_LOG_2 = math.log(2.0)


def _pair(op: str, labels: Any, predictions: Any, reduction: str) -> tuple[Tensor, Tensor]:
    """(labels, predictions) as real float tensors of the predictions' dtype and one shape."""
    _check_reduction(op, reduction)
    predictions = real_float(predictions, op)
    labels = astype(real_float(labels, op), predictions._dtype)
    if labels.shape != predictions.shape:
        raise ShapeError(f"{op}: labels have shape {labels.shape} but predictions have "
                         f"{predictions.shape}; they must be equal (broadcast or reshape one first).")
    return labels, predictions


def _class_axis(op: str, predictions: Tensor, axis: int) -> int:
    if not predictions.ndim:
        raise ShapeError(f"{op} needs at least one dimension (the classes), got a 0-d tensor.")
    return normalize_axis(axis, predictions.ndim, op)


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return _mean(loss)
    if reduction == "sum":
        return _sum(loss)
    return loss


def mean_squared_error(labels: Any, predictions: Any, *, reduction: str = "mean") -> Tensor:
    """(predictions - labels) ** 2 per element, reduced (torch's mse_loss)."""
    labels, predictions = _pair("mean_squared_error", labels, predictions, reduction)
    return _reduce(squared_difference(predictions, labels), reduction)


def mean_absolute_error(labels: Any, predictions: Any, *, reduction: str = "mean") -> Tensor:
    """|predictions - labels| per element, reduced (torch's l1_loss)."""
    labels, predictions = _pair("mean_absolute_error", labels, predictions, reduction)
    return _reduce(_abs(subtract(predictions, labels)), reduction)


def huber(labels: Any, predictions: Any, *, delta: float = 1.0, reduction: str = "mean") -> Tensor:
    """0.5 e**2 where e = |predictions - labels| <= delta, else delta * (e - 0.5 delta), per
    element (torch's huber_loss, Keras's Huber); delta > 0."""
    labels, predictions = _pair("huber", labels, predictions, reduction)
    delta = finite(delta, "huber", "delta")
    if delta <= 0:
        raise ShapeError(f"huber: delta must be positive, got {delta}; pass e.g. delta=1.0.")
    error = _abs(subtract(predictions, labels))
    quadratic = minimum(error, delta)
    return _reduce(multiply(quadratic, quadratic) * 0.5 + (error - quadratic) * delta, reduction)


def binary_cross_entropy(labels: Any, predictions: Any, *, reduction: str = "mean") -> Tensor:
    """-(labels log p + (1 - labels) log(1 - p)) per element, for probabilities p clipped to
    [1e-7, 1 - 1e-7] as Keras clips them (torch's binary_cross_entropy clamps the logarithms at
    -100 instead)."""
    labels, predictions = _pair("binary_cross_entropy", labels, predictions, reduction)
    p = clip(predictions, EPSILON, 1.0 - EPSILON)
    loss = negative(multiply(labels, log(p)) + multiply(1.0 - labels, log(1.0 - p)))
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(labels: Any, logits: Any, *, reduction: str = "mean") -> Tensor:
    """The binary cross-entropy of sigmoid(logits) per element (torch's
    binary_cross_entropy_with_logits), computed stably as (1 - labels) softplus(logits) +
    labels softplus(-logits): no overflow, and no cancellation for large |logits|."""
    labels, logits = _pair("binary_cross_entropy_with_logits", labels, logits, reduction)
    loss = multiply(1.0 - labels, softplus(logits)) + multiply(labels, softplus(negative(logits)))
    return _reduce(loss, reduction)


def categorical_cross_entropy(labels: Any, predictions: Any, *, axis: int = -1,
                              reduction: str = "mean") -> Tensor:
    """-sum(labels * log p, axis) per example, for predictions that are probabilities along
    `axis` (rescaled to sum to 1, then clipped to [1e-7, 1 - 1e-7], as Keras does); for logits
    use ``softmax_cross_entropy``."""
    labels, predictions = _pair("categorical_cross_entropy", labels, predictions, reduction)
    ax = _class_axis("categorical_cross_entropy", predictions, axis)
    p = clip(divide(predictions, _sum(predictions, axis=ax, keepdims=True)), EPSILON, 1.0 - EPSILON)
    return _reduce(negative(_sum(multiply(labels, log(p)), axis=ax)), reduction)


def hinge(labels: Any, predictions: Any, *, reduction: str = "mean") -> Tensor:
    """max(1 - labels * predictions, 0) per element, labels being -1 or 1 (optax's hinge_loss;
    Keras also maps labels 0/1 to -1/1, which this does not)."""
    labels, predictions = _pair("hinge", labels, predictions, reduction)
    return _reduce(maximum(1.0 - multiply(labels, predictions), 0.0), reduction)


def _unit(x: Tensor, axis: int) -> Tensor:
    return divide(x, sqrt(maximum(_sum(multiply(x, x), axis=axis, keepdims=True), _NORM_FLOOR)))


def cosine_similarity(labels: Any, predictions: Any, *, axis: int = -1, reduction: str = "mean") -> Tensor:
    """-cos(labels, predictions) along `axis` per example, vectors normalized as Keras's
    CosineSimilarity loss does (squared norms floored at 1e-12), so that minimizing it aligns
    them (between -1 and 1; torch's cosine_embedding_loss and optax's cosine_distance give
    1 - cos)."""
    labels, predictions = _pair("cosine_similarity", labels, predictions, reduction)
    ax = _class_axis("cosine_similarity", predictions, axis)
    return _reduce(negative(_sum(multiply(_unit(labels, ax), _unit(predictions, ax)), axis=ax)), reduction)


def kl_divergence(labels: Any, predictions: Any, *, axis: int = -1, reduction: str = "mean") -> Tensor:
    """sum(labels * log(labels / predictions), axis) per example, both probabilities clipped to
    [1e-7, 1] (Keras's KLDivergence). torch's kl_div takes log-probabilities first and the
    labels second; its reduction="batchmean" is this "mean" for 2-d inputs."""
    labels, predictions = _pair("kl_divergence", labels, predictions, reduction)
    ax = _class_axis("kl_divergence", predictions, axis)
    y, p = clip(labels, EPSILON, 1.0), clip(predictions, EPSILON, 1.0)
    return _reduce(_sum(multiply(y, log(divide(y, p))), axis=ax), reduction)


def log_cosh(labels: Any, predictions: Any, *, reduction: str = "mean") -> Tensor:
    """log(cosh(predictions - labels)) per element, computed stably as
    softplus(2 e) - e - log(2) (no overflow of cosh; Keras's LogCosh)."""
    labels, predictions = _pair("log_cosh", labels, predictions, reduction)
    error = subtract(predictions, labels)
    return _reduce(softplus(error * 2.0) - error - _LOG_2, reduction)
