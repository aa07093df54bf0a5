"""tp.metrics: each metric against sklearn.metrics (or a numpy formula written here), over
batches that accumulate, with and without sample weights, after a reset, with inputs as numpy
arrays and as Tensors of each backend; names, tp.metrics.get, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as sk

import tensorplug as tp

N, C = 23, 6
RNG = np.random.default_rng(0)
LABELS = RNG.integers(0, C, N)
LABELS[:C] = np.arange(C)  # (every class present)
SCORES = RNG.random((N, C))
ONE_HOT = np.eye(C)[LABELS]
BINARY = RNG.integers(0, 2, N)
PROBS = RNG.random(N)
TARGETS = RNG.standard_normal((N, 3))
OUTPUTS = RNG.standard_normal((N, 3))
WEIGHTS = RNG.random(N) + 0.1


def _per_value(values, w):
    """The weighted mean of per-example values (an example's mean over its other axes)."""
    values = values.reshape(len(values), -1).mean(axis=1)
    return np.average(values, weights=w)


#: name, metric, y_true, y_pred, the expected value of (y_true, y_pred, sample_weight or None)
CASES = [
    ("accuracy", tp.metrics.Accuracy, LABELS, np.where(PROBS > 0.3, LABELS, 0),
     lambda t, p, w: sk.accuracy_score(t, p, sample_weight=w)),
    ("binary_accuracy", tp.metrics.BinaryAccuracy, BINARY, PROBS,
     lambda t, p, w: sk.accuracy_score(t, p > 0.5, sample_weight=w)),
    ("binary_accuracy", lambda: tp.metrics.BinaryAccuracy(threshold=0.8), BINARY, PROBS,
     lambda t, p, w: sk.accuracy_score(t, p > 0.8, sample_weight=w)),
    ("categorical_accuracy", tp.metrics.CategoricalAccuracy, ONE_HOT, SCORES,
     lambda t, p, w: sk.accuracy_score(t.argmax(-1), p.argmax(-1), sample_weight=w)),
    ("sparse_categorical_accuracy", tp.metrics.SparseCategoricalAccuracy, LABELS, SCORES,
     lambda t, p, w: sk.accuracy_score(t, p.argmax(-1), sample_weight=w)),
    ("sparse_categorical_accuracy", tp.metrics.SparseCategoricalAccuracy, LABELS[:, None], SCORES,
     lambda t, p, w: sk.accuracy_score(t[:, 0], p.argmax(-1), sample_weight=w)),
    ("top_k_categorical_accuracy", lambda: tp.metrics.TopKCategoricalAccuracy(k=3), ONE_HOT, SCORES,
     lambda t, p, w: sk.top_k_accuracy_score(t.argmax(-1), p, k=3, labels=range(C), sample_weight=w)),
    ("sparse_top_k_categorical_accuracy", lambda: tp.metrics.SparseTopKCategoricalAccuracy(k=2),
     LABELS, SCORES,
     lambda t, p, w: sk.top_k_accuracy_score(t, p, k=2, labels=range(C), sample_weight=w)),
    ("top_k_categorical_accuracy", tp.metrics.TopKCategoricalAccuracy, ONE_HOT, SCORES,  # k=5 of 6
     lambda t, p, w: sk.top_k_accuracy_score(t.argmax(-1), p, k=5, labels=range(C), sample_weight=w)),
    ("mean_squared_error", tp.metrics.MeanSquaredError, TARGETS, OUTPUTS,
     lambda t, p, w: sk.mean_squared_error(t, p, sample_weight=w)),
    ("mean_absolute_error", tp.metrics.MeanAbsoluteError, TARGETS, OUTPUTS,
     lambda t, p, w: sk.mean_absolute_error(t, p, sample_weight=w)),
    ("mean_squared_error", tp.metrics.MeanSquaredError, TARGETS[:, 0], OUTPUTS[:, 0],
     lambda t, p, w: sk.mean_squared_error(t, p, sample_weight=w)),
    ("precision", tp.metrics.Precision, BINARY, PROBS,
     lambda t, p, w: sk.precision_score(t, p > 0.5, sample_weight=w, zero_division=0)),
    ("recall", tp.metrics.Recall, BINARY, PROBS,
     lambda t, p, w: sk.recall_score(t, p > 0.5, sample_weight=w, zero_division=0)),
    ("precision", lambda: tp.metrics.Precision(threshold=0.2), BINARY, PROBS,
     lambda t, p, w: sk.precision_score(t, p > 0.2, sample_weight=w, zero_division=0)),
    ("my_squares", lambda: tp.metrics.MeanMetricWrapper(lambda t, p: np.square(t - p).sum(-1), "my_squares"),
     TARGETS, OUTPUTS, lambda t, p, w: _per_value(np.square(t - p).sum(-1), w)),
]
IDS = [f"{case[0]}-{i}" for i, case in enumerate(CASES)]
SPLITS = (0, 5, 6, 17, N)  # batches of 5, 1, 11 and 6 examples


def _check_batches(convert, rtol, weighted, name, make, y_true, y_pred, expected):
    """Batches accumulate to the reference value of all of them; a reset starts again."""
    metric = make()
    assert metric.name == name and metric.result() == 0.0
    for start, stop in zip(SPLITS, SPLITS[1:]):
        w = WEIGHTS[start:stop] if weighted else None
        metric.update_state(convert(y_true[start:stop]), convert(y_pred[start:stop]), sample_weight=w)
    reference = expected(y_true, y_pred, WEIGHTS if weighted else None)
    assert isinstance(metric.result(), float)
    np.testing.assert_allclose(metric.result(), reference, rtol=rtol)
    metric.reset_state()
    assert metric.result() == 0.0
    metric.update_state(convert(y_true[:7]), convert(y_pred[:7]))
    np.testing.assert_allclose(metric.result(), expected(y_true[:7], y_pred[:7], None), rtol=rtol)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name, make, y_true, y_pred, expected", CASES, ids=IDS)
def test_numpy_batches_accumulate_to_the_reference_value(weighted, name, make, y_true, y_pred, expected):
    _check_batches(np.asarray, 1e-12, weighted, name, make, y_true, y_pred, expected)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name, make, y_true, y_pred, expected", CASES, ids=IDS)
def test_tensor_batches_accumulate_to_the_reference_value(backend, weighted, name, make, y_true, y_pred,
                                                          expected):
    # (float32 Tensors where the backend keeps no float64)
    _check_batches(tp.asarray, 1e-5, weighted, name, make, y_true, y_pred, expected)


def test_weights_per_value_weigh_each_value():
    w = RNG.random(TARGETS.shape)
    metric = tp.metrics.MeanAbsoluteError()
    metric.update_state(TARGETS, OUTPUTS, sample_weight=w)
    np.testing.assert_allclose(metric.result(), np.average(np.abs(TARGETS - OUTPUTS), weights=w))
    recall = tp.metrics.Recall()
    recall.update_state(BINARY[:, None], PROBS[:, None], sample_weight=WEIGHTS[:, None])
    np.testing.assert_allclose(recall.result(), sk.recall_score(BINARY, PROBS > 0.5, sample_weight=WEIGHTS))


def test_mean_is_the_running_mean_weighted_by_batch_size(backend):
    loss = tp.metrics.Mean(name="loss")
    for value, size in [(2.0, 32), (tp.asarray(4.0), 32), (np.float32(1.0), 8)]:
        loss.update_state(value, weight=size)
    assert loss.name == "loss" and loss.result() == pytest.approx((2 * 32 + 4 * 32 + 1 * 8) / 72)
    unweighted = tp.metrics.Mean()
    unweighted.update_state(np.array([1.0, 2.0, 6.0]))
    unweighted.update_state(3.0)
    assert unweighted.name == "mean" and unweighted.result() == 3.0


def test_precision_and_recall_are_zero_without_predicted_or_true_positives():
    precision, recall = tp.metrics.Precision(), tp.metrics.Recall()
    for metric in (precision, recall):
        metric.update_state(np.zeros(4), np.zeros(4))
    assert precision.result() == 0.0 and recall.result() == 0.0


def test_ties_with_the_kth_score_count_as_in_the_top_k():
    metric = tp.metrics.SparseTopKCategoricalAccuracy(k=1)
    metric.update_state(np.array([0, 1]), np.array([[0.5, 0.5, 0.0], [0.2, 0.1, 0.7]]))
    assert metric.result() == 0.5


# -- names and get ---------------------------------------------------------------------------

@pytest.mark.parametrize("identifier, cls", [
    ("accuracy", tp.metrics.Accuracy), ("acc", tp.metrics.Accuracy),
    ("binary_accuracy", tp.metrics.BinaryAccuracy), ("categorical_accuracy", tp.metrics.CategoricalAccuracy),
    ("sparse_categorical_accuracy", tp.metrics.SparseCategoricalAccuracy),
    ("top_k_categorical_accuracy", tp.metrics.TopKCategoricalAccuracy),
    ("sparse_top_k_categorical_accuracy", tp.metrics.SparseTopKCategoricalAccuracy),
    ("mse", tp.metrics.MeanSquaredError), ("mean_squared_error", tp.metrics.MeanSquaredError),
    ("mae", tp.metrics.MeanAbsoluteError), ("mean_absolute_error", tp.metrics.MeanAbsoluteError),
    ("precision", tp.metrics.Precision), ("recall", tp.metrics.Recall),
])
def test_get_by_keras_name_makes_a_new_metric_named_by_the_string(identifier, cls):
    first, second = tp.metrics.get(identifier), tp.metrics.get(identifier)
    assert type(first) is cls and first is not second and first.name == identifier


def test_get_takes_metrics_classes_and_functions():
    metric = tp.metrics.Recall(name="r")
    assert tp.metrics.get(metric) is metric
    assert type(tp.metrics.get(tp.metrics.Precision)) is tp.metrics.Precision

    def exact(y_true, y_pred):
        return tp.mean(tp.astype(tp.equal(tp.asarray(y_true), tp.asarray(y_pred)), tp.float32))

    wrapped = tp.metrics.get(exact)
    assert isinstance(wrapped, tp.metrics.MeanMetricWrapper) and wrapped.name == "exact"
    wrapped.update_state(np.array([1, 2, 3, 4]), np.array([1, 2, 0, 0]))  # a scalar per batch ...
    wrapped.update_state(np.array([5, 6]), np.array([5, 6]))  # ... counts once per example
    assert wrapped.result() == pytest.approx(4 / 6)


def test_default_names_are_keras_names_or_the_class_name_in_snake_case():
    class F1Score(tp.metrics.Metric):
        pass

    assert F1Score().name == "f1_score"
    assert tp.metrics.SparseTopKCategoricalAccuracy().name == "sparse_top_k_categorical_accuracy"


def test_positional_arguments_come_in_keras_order():
    assert tp.metrics.Precision(0.3).threshold == tp.metrics.Recall(0.3).threshold == 0.3  # (threshold, name)
    assert tp.metrics.BinaryAccuracy("b", 0.3).threshold == 0.3  # (name, dtype, threshold): no dtype here
    assert tp.metrics.TopKCategoricalAccuracy(3, "top3").k == 3


@pytest.mark.parametrize("call, error, message", [
    (lambda: tp.metrics.get("accurasy"), tp.ArgumentError,
     r"tp.metrics.get: unknown metric 'accurasy'; did you mean 'accuracy'.*the names are acc, accuracy, "),
    (lambda: tp.metrics.get("nonsense"), tp.ArgumentError, r"unknown metric 'nonsense'; the names are acc,"),
    (lambda: tp.metrics.get(3), tp.ArgumentError, r"tp.metrics.get: got 3; give a Metric"),
    (lambda: tp.metrics.Accuracy(name=3), tp.ArgumentError, r"Accuracy: name must be a str, got 3"),
    (lambda: tp.metrics.TopKCategoricalAccuracy(k=0), tp.ShapeError, r"TopKCategoricalAccuracy: k must be"),
    (lambda: tp.metrics.Precision(threshold=1.5), tp.HyperparameterError,
     r"Precision: threshold must be between 0 and 1, got 1.5"),
    (lambda: tp.metrics.BinaryAccuracy(threshold="high"), tp.ArgumentError, r"threshold must be a real"),
    (lambda: tp.metrics.MeanMetricWrapper(3), tp.ArgumentError, r"MeanMetricWrapper: fn must be a function"),
])
def test_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("update, message", [
    (lambda: tp.metrics.Accuracy().update_state(np.array(["a"]), np.zeros(1)),
     r"Accuracy 'accuracy': y_true must be an array of real numbers .*, got a ndarray .* dtype str"),
    (lambda: tp.metrics.Precision().update_state(np.zeros(2), [[1], [2, 3]]),
     r"Precision 'precision': y_pred must be"),
    (lambda: tp.metrics.MeanSquaredError().update_state(np.zeros(2), np.zeros(2), sample_weight="w"),
     r"MeanSquaredError 'mean_squared_error': sample_weight must be an array of real numbers"),
    (lambda: tp.metrics.Mean("loss").update_state(object()), r"Mean 'loss': value must be an array of real"),
    (lambda: tp.metrics.Mean("loss").update_state(1.0, weight=1j), r"Mean 'loss': weight must be"),
    (lambda: tp.metrics.MeanMetricWrapper(lambda t, p: "high").update_state(np.zeros(2), np.zeros(2)),
     r"MeanMetricWrapper '<lambda>': what <lambda> returned must be an array of real numbers .*, got 'high'"),
])
def test_inputs_that_are_not_real_arrays_are_argument_errors(update, message):
    with pytest.raises(tp.ArgumentError, match=message):
        update()


@pytest.mark.parametrize("metric, y_true, y_pred, sample_weight, message", [
    (tp.metrics.Accuracy(), np.zeros(4), np.zeros(5), None,
     r"Accuracy 'accuracy': y_true of shape \(4,\) and y_pred of shape \(5,\) do not match; .* of one shape"),
    (tp.metrics.SparseCategoricalAccuracy(), np.zeros((4, 3)), np.zeros((4, 3)), None,
     r"SparseCategoricalAccuracy 'sparse_categorical_accuracy': y_true of shape \(4, 3\) and y_pred of shape "
     r"\(4, 3\) do not match; .*integer labels of y_pred's shape without its last \(class\) axis"),
    (tp.metrics.CategoricalAccuracy(), np.zeros(4), np.zeros((4, 3)), None,
     r"CategoricalAccuracy .*\(4,\) and y_pred of shape \(4, 3\).*\(\.\.\., classes\)"),
    (tp.metrics.TopKCategoricalAccuracy(), np.zeros(()), np.zeros(()), None, r"shape \(\.\.\., classes\)"),
    (tp.metrics.MeanSquaredError(), np.zeros((4, 2)), np.zeros((4, 3)), None, r"MeanSquaredError 'mean_squa"),
    (tp.metrics.Precision(), np.zeros(4), np.zeros((4, 2)), None, r"Precision 'precision': y_true of shape"),
    (tp.metrics.MeanAbsoluteError(), np.zeros(4), np.zeros(4), np.ones(3),
     r"MeanAbsoluteError 'mean_absolute_error': sample_weight of shape \(3,\) does not fit .*one weight per"),
    (tp.metrics.Recall(), np.zeros(4), np.zeros(4), np.ones((4, 2)),
     r"Recall 'recall': sample_weight of shape \(4, 2\) has more axes than y_true of shape \(4,\)"),
    (tp.metrics.Recall(), np.zeros((4, 2)), np.zeros((4, 2)), np.ones(3),
     r"Recall 'recall': sample_weight of shape \(3,\) does not fit y_true of shape \(4, 2\)"),
])
def test_shape_errors_name_the_metric_and_both_shapes(metric, y_true, y_pred, sample_weight, message):
    with pytest.raises(tp.ShapeError, match=message):
        metric.update_state(y_true, y_pred, sample_weight=sample_weight)
