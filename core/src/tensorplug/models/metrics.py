"""Keras-style stateful metrics (``tp.metrics``): each keeps running sums in Python floats,
updated per batch with numpy after one conversion of each input (a Tensor of any backend, or
an array), and ``result()`` gives the value over every batch since ``reset_state()``.

Sample weights follow Keras: a weight per example (of y_true's leading axes, e.g. shape
``(batch,)``) weighs that example's value, its mean over the remaining axes; a weight of
y_true's shape weighs each value (a scalar too, where Keras would average the batch first);
the result is the weighted sum over the weights' sum.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.core.validate import function, integer, number, shown
from tensorplug.errors import ArgumentError, HyperparameterError, ShapeError, TensorplugError

__all__ = ["Metric", "Mean", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy",
           "SparseCategoricalAccuracy", "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy",
           "MeanSquaredError", "MeanAbsoluteError", "Precision", "Recall", "get"]


class Metric:
    """A stateful metric: ``update_state(y_true, y_pred, sample_weight=None)`` per batch,
    ``result()`` over the batches so far, ``reset_state()`` to start again; ``name`` keys it
    in a training history."""

    #: the name given none (Keras's); a class that sets none gets its own in snake case
    default_name: str | None = None

    def __init__(self, name: str | None = None) -> None:
        if name is not None and not isinstance(name, str):
            raise ArgumentError(f"{type(self).__name__}: name must be a str, got {shown(name)}.")
        cls = type(self)
        default = cls.__dict__.get("default_name") or re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        self.name: str = default if name is None else name
        self.reset_state()

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Add one batch to the state (a label metric takes ``(y_true, y_pred, sample_weight=None)``)."""
        raise NotImplementedError(f"{type(self).__name__}.update_state")

    def result(self) -> float:
        """The metric over every batch added since the last reset (0.0 before any)."""
        raise NotImplementedError(f"{type(self).__name__}.result")

    def reset_state(self) -> None:
        """Forget every batch added (a subclass sets its state here: ``__init__`` calls it)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {self.result():.6g}>"


class _Averaged(Metric):
    """A metric that is a weighted mean of values: a running total and count."""

    _weight_arg = "sample_weight"  # (what update_state calls the weights, for messages)

    def reset_state(self) -> None:
        """Forget every batch added."""
        self.total, self.count = 0.0, 0.0

    def result(self) -> float:
        """The weighted mean of every value added since the last reset (0.0 before any)."""
        return self.total / self.count if self.count else 0.0

    def _add(self, values: np.ndarray, weight: Any, y_shape: tuple[int, ...]) -> None:
        values = np.asarray(values, dtype=np.float64)
        if weight is None:
            self.total += float(values.sum())
            self.count += values.size
            return
        weights = _weights(weight, values.ndim, self, y_shape, self._weight_arg)
        if 0 < weights.ndim < values.ndim:  # (a weight per example: the example's mean value)
            values = values.mean(axis=tuple(range(weights.ndim, values.ndim)))
        try:
            weights = np.broadcast_to(weights, values.shape)
        except ValueError:
            raise ShapeError(f"{_named(self)}: {self._weight_arg} of shape {weights.shape} does not fit the "
                             f"values of shape {values.shape} (y_true of shape {y_shape}); "
                             f"{_WEIGHTS}") from None
        self.total += float((values * weights).sum())
        self.count += float(weights.sum())


class Mean(_Averaged):
    """The running mean of values weighted by `weight` (what ``fit`` shows as "loss": one scalar
    per batch, weighted by the batch's size): ``update_state(value, weight=1.0)``."""

    default_name = "mean"
    _weight_arg = "weight"

    def update_state(self, value: Any, weight: Any = 1.0) -> None:
        """Add `value` (a scalar, or an array: each of its values) with `weight` (a scalar for
        every value, or one per value)."""
        if type(value) is float and type(weight) in (int, float) and weight >= 0:  # (fit's loss, each step)
            self.total += value * weight
            self.count += weight
            return
        value = _real(value, self, "value")
        self._add(value, weight, value.shape)


class _LabelMetric(_Averaged):
    """A mean over examples of what ``_values(y_true, y_pred)`` gives (Keras's MeanMetricWrapper)."""

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add one batch: labels `y_true`, predictions `y_pred` (Tensors or arrays) and optional
        `sample_weight` (one per example, or one per value)."""
        y_true, y_pred = _real(y_true, self, "y_true"), _real(y_pred, self, "y_pred")
        self._add(self._values(y_true, y_pred), sample_weight, y_true.shape)

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class MeanMetricWrapper(_LabelMetric):
    """``fn(y_true, y_pred)`` (given numpy arrays; it may return a Tensor) averaged over the
    examples: a value per example is weighted by ``sample_weight``, a scalar counts once for
    each example of its batch. Its name is ``fn.__name__`` unless `name` is given."""

    def __init__(self, fn: Callable[[Any, Any], Any], name: str | None = None) -> None:
        self.fn = function(fn, "tp.metrics.MeanMetricWrapper", "fn")
        super().__init__(getattr(fn, "__name__", "metric") if name is None else name)

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        values = _real(self.fn(y_true, y_pred), self, f"what {getattr(self.fn, '__name__', 'fn')} returned")
        return np.full(len(y_true) if y_true.ndim else 1, float(values)) if values.ndim == 0 else values


class Accuracy(_LabelMetric):
    """How often `y_pred` equals `y_true` exactly, value by value (arrays of one shape)."""

    default_name = "accuracy"

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = _same_shape(self, y_true, y_pred)
        return y_true == y_pred


class BinaryAccuracy(_LabelMetric):
    """How often ``y_pred > threshold`` equals `y_true` (labels 0 or 1; arrays of one shape)."""

    default_name = "binary_accuracy"

    def __init__(self, name: str | None = None, threshold: float = 0.5) -> None:
        self.threshold = _probability(threshold, type(self).__name__, "threshold")
        super().__init__(name)

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = _same_shape(self, y_true, y_pred)
        return y_true == (y_pred > self.threshold)


class CategoricalAccuracy(_LabelMetric):
    """How often the argmax of `y_pred` is that of one-hot `y_true` (both ``(..., classes)``)."""

    default_name = "categorical_accuracy"

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = _same_shape(self, y_true, y_pred, classes=True)
        return np.argmax(y_true, axis=-1) == np.argmax(y_pred, axis=-1)


class SparseCategoricalAccuracy(_LabelMetric):
    """How often the argmax of `y_pred` (``(..., classes)``) is the integer label `y_true`
    (``(...)``, or ``(..., 1)``)."""

    default_name = "sparse_categorical_accuracy"

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return _sparse_labels(self, y_true, y_pred) == np.argmax(y_pred, axis=-1)


class TopKCategoricalAccuracy(_LabelMetric):
    """How often one-hot `y_true`'s class is among the `k` largest of `y_pred` (both
    ``(..., classes)``; a class tied with the k-th largest counts, as Keras's in_top_k)."""

    default_name = "top_k_categorical_accuracy"

    def __init__(self, k: int = 5, name: str | None = None) -> None:
        self.k = integer(k, type(self).__name__, "k", minimum=1)
        super().__init__(name)

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = _same_shape(self, y_true, y_pred, classes=True)
        return _in_top_k(np.argmax(y_true, axis=-1), y_pred, self.k)


class SparseTopKCategoricalAccuracy(TopKCategoricalAccuracy):
    """How often the integer label `y_true` (``(...)``, or ``(..., 1)``) is among the `k`
    largest of `y_pred` (``(..., classes)``; ties with the k-th largest count)."""

    default_name = "sparse_top_k_categorical_accuracy"

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return _in_top_k(_sparse_labels(self, y_true, y_pred), y_pred, self.k)


class MeanSquaredError(_LabelMetric):
    """The mean of ``(y_true - y_pred) ** 2`` (arrays of one shape)."""

    default_name = "mean_squared_error"

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = _same_shape(self, y_true, y_pred)
        return np.square(y_true.astype(np.float64) - y_pred.astype(np.float64))


class MeanAbsoluteError(_LabelMetric):
    """The mean of ``|y_true - y_pred|`` (arrays of one shape)."""

    default_name = "mean_absolute_error"

    def _values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = _same_shape(self, y_true, y_pred)
        return np.abs(y_true.astype(np.float64) - y_pred.astype(np.float64))


class _Confusion(Metric):
    """Weighted counts of true positives, false positives and false negatives of binary labels
    (nonzero `y_true` is positive) against ``y_pred > threshold``. The threshold comes first,
    as Keras's `thresholds`."""

    def __init__(self, threshold: float = 0.5, name: str | None = None) -> None:
        self.threshold = _probability(threshold, type(self).__name__, "threshold")
        super().__init__(name)

    def reset_state(self) -> None:
        """Forget every batch added."""
        self.true_positives = self.false_positives = self.false_negatives = 0.0

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add one batch: binary labels `y_true`, scores `y_pred` of its shape, and optional
        `sample_weight` (one per example, or one per value)."""
        y_true, y_pred = _same_shape(self, _real(y_true, self, "y_true"), _real(y_pred, self, "y_pred"))
        true, predicted = y_true.astype(bool), y_pred > self.threshold
        weights = np.ones(true.shape)
        if sample_weight is not None:
            given = _weights(sample_weight, true.ndim, self, true.shape)
            try:
                per_value = given.reshape(given.shape + (1,) * (true.ndim - given.ndim))
                weights = np.broadcast_to(per_value, true.shape)
            except ValueError:
                raise ShapeError(f"{_named(self)}: sample_weight of shape {given.shape} does not fit y_true "
                                 f"of shape {true.shape}; {_WEIGHTS}") from None
        self.true_positives += float(weights[true & predicted].sum())
        self.false_positives += float(weights[~true & predicted].sum())
        self.false_negatives += float(weights[true & ~predicted].sum())


class Precision(_Confusion):
    """The weighted share of true positives among the predicted positives (``y_pred >
    threshold``); 0.0 while nothing was predicted positive."""

    default_name = "precision"

    def result(self) -> float:
        """true positives / (true positives + false positives), or 0.0."""
        predicted = self.true_positives + self.false_positives
        return self.true_positives / predicted if predicted else 0.0


class Recall(_Confusion):
    """The weighted share of the positives of `y_true` predicted positive (``y_pred >
    threshold``); 0.0 while no positive label was seen."""

    default_name = "recall"

    def result(self) -> float:
        """true positives / (true positives + false negatives), or 0.0."""
        positives = self.true_positives + self.false_negatives
        return self.true_positives / positives if positives else 0.0


# -- tp.metrics.get ------------------------------------------------------------------------

#: the names `get` takes: Keras's, with its short forms
NAMES: dict[str, type[Metric]] = {
    "accuracy": Accuracy, "acc": Accuracy, "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "mean_squared_error": MeanSquaredError, "mse": MeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError, "mae": MeanAbsoluteError,
    "precision": Precision, "recall": Recall,
}


def get(identifier: Metric | type[Metric] | str | Callable[[Any, Any], Any]) -> Metric:
    """A Metric: an instance as it is; a Metric class, made with its defaults; a name (Keras's:
    "accuracy" or "acc", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
    "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "mean_squared_error" or
    "mse", "mean_absolute_error" or "mae", "precision", "recall"), made and named by that string; a function
    ``f(y_true, y_pred)`` as ``MeanMetricWrapper(f)``. "accuracy" is always ``Accuracy`` (exact
    equality) here: Keras picks the accuracy that fits the loss, which ``fit`` does itself."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, str):
        if identifier not in NAMES:
            close = difflib.get_close_matches(identifier.lower(), list(NAMES), n=3)
            hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            raise ArgumentError(f"tp.metrics.get: unknown metric {identifier!r}; {hint}the names are "
                                f"{', '.join(sorted(NAMES))} (or pass a Metric, or a function of "
                                "(y_true, y_pred)).")
        return NAMES[identifier](name=identifier)
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ArgumentError(f"tp.metrics.get: got {shown(identifier)}; give a Metric, a metric's name such as "
                        "'accuracy', or a function of (y_true, y_pred).")


# -- helpers -------------------------------------------------------------------------------

_WEIGHTS = "give one weight per example (shape (batch,)) or one per value."


def _named(metric: Metric) -> str:
    return f"{type(metric).__name__} {metric.name!r}"


def _probability(value: Any, where: str, arg: str) -> float:
    value = float(number(value, where, arg))
    if not 0.0 <= value <= 1.0:
        raise HyperparameterError(f"{where}: {arg} must be between 0 and 1, got {value!r}.")
    return value


def _same_shape(metric: Metric, y_true: np.ndarray, y_pred: np.ndarray,
                classes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """y_true and y_pred of one shape, a trailing axis of size 1 on one of them dropped (as
    Keras's squeeze_or_expand_to_same_rank); with `classes`, at least one axis (the classes)."""
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1:] == (1,):
        y_true = y_true[..., 0]
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1:] == (1,):
        y_pred = y_pred[..., 0]
    if y_true.shape != y_pred.shape or (classes and y_true.ndim == 0):
        need = "(..., classes)" if classes else "(a trailing axis of size 1 may differ)"
        raise ShapeError(f"{_named(metric)}: y_true of shape {y_true.shape} and y_pred of shape "
                         f"{y_pred.shape} do not match; the metric needs them of one shape {need}.")
    return y_true, y_pred


def _sparse_labels(metric: Metric, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Integer labels of y_pred's shape without its class axis (a trailing axis of size 1 dropped)."""
    if y_pred.ndim >= 1 and y_true.ndim == y_pred.ndim and y_true.shape[-1:] == (1,):
        y_true = y_true[..., 0]
    if y_pred.ndim == 0 or y_true.shape != y_pred.shape[:-1]:
        raise ShapeError(f"{_named(metric)}: y_true of shape {y_true.shape} and y_pred of shape "
                         f"{y_pred.shape} do not match; the metric needs integer labels of y_pred's shape "
                         "without its last (class) axis, e.g. (batch,) labels for (batch, classes) "
                         "predictions.")
    return y_true


def _in_top_k(labels: np.ndarray, y_pred: np.ndarray, k: int) -> np.ndarray:
    """Whether each label's score is at least the k-th largest of its row."""
    classes = y_pred.shape[-1]
    labels = labels.astype(np.int64)
    inside = (labels >= 0) & (labels < classes)
    scores = np.take_along_axis(y_pred, np.where(inside, labels, 0)[..., None], axis=-1)[..., 0]
    if k >= classes:
        return inside
    kth = np.partition(y_pred, classes - k, axis=-1)[..., classes - k]
    return inside & (scores >= kth)


def _real(value: Any, metric: Metric, arg: str) -> np.ndarray:
    """`value` (a Tensor of any backend, an array, a number, nested lists) as a numpy array of
    bools, ints or floats; ArgumentError for anything else."""
    try:
        array = np.asarray(value)
    except TensorplugError:
        raise
    except (TypeError, ValueError, OverflowError):  # (ragged lists, say)
        array = np.asarray(None)
    if array.dtype.kind not in "biuf":
        raise ArgumentError(f"{_named(metric)}: {arg} must be an array of real numbers (a Tensor, a numpy "
                            f"array or a number), got {shown(value)}.")
    return array


def _weights(weight: Any, ndim: int, metric: Metric, y_shape: tuple[int, ...],
             arg: str = "sample_weight") -> np.ndarray:
    """Sample weights as float64, trailing axes of size 1 beyond `ndim` dropped."""
    weights = _real(weight, metric, arg).astype(np.float64)
    while weights.ndim > ndim and weights.shape[-1] == 1:
        weights = weights[..., 0]
    if weights.ndim > ndim:
        raise ShapeError(f"{_named(metric)}: {arg} of shape {weights.shape} has more axes than "
                         f"y_true of shape {y_shape}; {_WEIGHTS}")
    return weights
