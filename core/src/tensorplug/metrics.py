"""``tp.metrics``: Keras-style stateful metrics for ``fit`` and custom training loops.

``update_state(y_true, y_pred, sample_weight=None)`` after each batch (Tensors of any backend
or numpy arrays), ``result()`` for the value over the batches so far, ``reset_state()`` per
epoch; ``Mean`` is the running mean of a scalar per batch (the loss). ``get`` makes a metric
from a Keras name ("accuracy", "sparse_categorical_accuracy", "mse", ...) or a function.

    metric = tp.metrics.SparseCategoricalAccuracy()
    for x, y in tp.data.batches((x_train, y_train), 32):
        metric.update_state(y, model(x))
    metric.result()
"""

from __future__ import annotations

from tensorplug.models.metrics import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    Mean,
    MeanAbsoluteError,
    MeanMetricWrapper,
    MeanSquaredError,
    Metric,
    Precision,
    Recall,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    get,
)

__all__ = ["Metric", "Mean", "MeanMetricWrapper", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy",
           "SparseCategoricalAccuracy", "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy",
           "MeanSquaredError", "MeanAbsoluteError", "Precision", "Recall", "get"]
