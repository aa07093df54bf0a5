"""What ``fit`` and ``evaluate`` are given, made ready: a loss by name or function, and the
metrics by name (``"accuracy"`` follows the loss, as in Keras) or object."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug import losses
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError
from tensorplug.families.nn.ops import softmax_cross_entropy, sparse_softmax_cross_entropy
from tensorplug.metrics import (
    BinaryAccuracy,
    CategoricalAccuracy,
    Metric,
    SparseCategoricalAccuracy,
)
from tensorplug.metrics import get as get_metric

__all__ = ["LOSSES", "loss_function", "metric_objects"]

Loss = Callable[[Any, Any], Tensor]

#: the losses ``fit`` knows by name: ``loss(y_true, y_pred)``, mean over the batch
LOSSES: dict[str, Loss] = {
    "sparse_softmax_cross_entropy": sparse_softmax_cross_entropy,  # integer labels, logits
    "softmax_cross_entropy": softmax_cross_entropy,  # one-hot labels, logits
    "categorical_cross_entropy": losses.categorical_cross_entropy,  # one-hot labels, probabilities
    "binary_cross_entropy": losses.binary_cross_entropy,  # 0/1 labels, probabilities
    "binary_cross_entropy_with_logits": losses.binary_cross_entropy_with_logits,
    "mean_squared_error": losses.mean_squared_error,
    "mse": losses.mean_squared_error,
    "mean_absolute_error": losses.mean_absolute_error,
    "mae": losses.mean_absolute_error,
    "huber": losses.huber,
}
# Keras's names take probabilities unless from_logits=True; ours say what they take
_KERAS_NAMES = {"sparse_categorical_crossentropy": "sparse_softmax_cross_entropy (integer labels, logits)",
                "categorical_crossentropy": "softmax_cross_entropy (one-hot labels, logits) or "
                                            "categorical_cross_entropy (probabilities)",
                "binary_crossentropy": "binary_cross_entropy_with_logits or binary_cross_entropy "
                                       "(probabilities)"}
# "accuracy" (and "acc") by the loss's labels and outputs
_ACCURACY_BY_LOSS: dict[str, Callable[[], Metric]] = {
    "sparse_softmax_cross_entropy": SparseCategoricalAccuracy,
    "softmax_cross_entropy": CategoricalAccuracy,
    "categorical_cross_entropy": CategoricalAccuracy,
    "binary_cross_entropy": BinaryAccuracy,
    "binary_cross_entropy_with_logits": lambda: BinaryAccuracy(threshold=0.0),
}
_BY_FUNCTION = {id(f): name for name, f in LOSSES.items()}


class ShapedAccuracy(Metric):
    """``"accuracy"`` when the loss does not say which: chosen by the shapes of the first batch,
    as Keras does: integer labels with one axis fewer than the predictions -> sparse
    categorical; predictions of one shape as the labels, with a last axis of more than one class
    -> categorical; else binary (threshold 0.5)."""

    default_name = "accuracy"

    def reset_state(self) -> None:
        """Forget every batch (the choice of accuracy is kept)."""
        chosen = getattr(self, "chosen", None)
        if chosen is not None:
            chosen.reset_state()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add one batch to the chosen accuracy (chosen at the first)."""
        if getattr(self, "chosen", None) is None:
            true_ndim, pred_shape = np.ndim(y_true), np.shape(y_pred)
            if len(pred_shape) == true_ndim + 1:
                self.chosen: Metric = SparseCategoricalAccuracy()
            elif len(pred_shape) == true_ndim >= 2 and pred_shape[-1] > 1:
                self.chosen = CategoricalAccuracy()
            else:
                self.chosen = BinaryAccuracy()
        self.chosen.update_state(y_true, y_pred, sample_weight)

    def result(self) -> float:
        """The chosen accuracy's result (0.0 before any batch)."""
        chosen = getattr(self, "chosen", None)
        return 0.0 if chosen is None else chosen.result()


def loss_function(loss: Any, op: str) -> Loss:
    """`loss` as a function ``(y_true, y_pred) -> scalar``: a name of ``LOSSES`` or a callable."""
    if callable(loss):
        return loss
    if isinstance(loss, str):
        if loss in LOSSES:
            return LOSSES[loss]
        if loss in _KERAS_NAMES:
            raise ArgumentError(f"{op}: loss {loss!r} is Keras's name; here it is {_KERAS_NAMES[loss]}.")
        near = difflib.get_close_matches(loss, LOSSES, n=1)
        hint = f" Did you mean {near[0]!r}?" if near else ""
        raise ArgumentError(f"{op}: unknown loss {loss!r}.{hint} Give a function (y_true, y_pred) -> scalar "
                            f"or one of {sorted(LOSSES)}.")
    raise ArgumentError(f"{op}: loss must be a function (y_true, y_pred) -> scalar or a loss's name, got "
                        f"{type(loss).__name__}; e.g. loss='sparse_softmax_cross_entropy'.")


def metric_objects(metrics: Sequence[Any], loss: Any, op: str) -> list[Metric]:
    """Fresh metric objects for `metrics` (names, metrics, functions); ``"accuracy"`` is the
    accuracy the loss's labels and outputs call for (sparse categorical for integer labels and
    logits, ...), or without a known loss the one the shapes call for (``ShapedAccuracy``)."""
    if isinstance(metrics, (str, Metric)) or callable(metrics):
        metrics = [metrics]
    out = []
    for m in metrics:
        if m in ("accuracy", "acc"):
            name = loss if isinstance(loss, str) else _BY_FUNCTION.get(id(loss))
            make = _ACCURACY_BY_LOSS.get(name) if name is not None else None
            metric = make() if make is not None else ShapedAccuracy()
            metric.name = "accuracy"
            out.append(metric)
            continue
        out.append(get_metric(m))
    return out
