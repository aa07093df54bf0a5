"""tp.losses on both backends: each loss against its definition in float64 numpy (the
definitions are Keras's and torch.nn.functional's formulas); the reductions; the errors;
gradients against finite differences to the 2nd order (3rd where smooth)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

EPS = 1e-7
RNG = np.random.default_rng(0)


def _probabilities(shape, seed):
    e = np.exp(np.random.default_rng(seed).standard_normal(shape))
    return e / e.sum(axis=-1, keepdims=True)


def _np_bce(y, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def _np_huber(y, p, delta=1.0):
    e = np.abs(p - y)
    return np.where(e <= delta, 0.5 * e * e, delta * (e - 0.5 * delta))


def _np_unit(x):
    return x / np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-12))


def _np_kl(y, p):
    y, p = np.clip(y, EPS, 1), np.clip(p, EPS, 1)
    return (y * np.log(y / p)).sum(-1)


def _np_categorical(y, p):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return -(y * np.log(p)).sum(-1)


# name, labels, predictions, numpy definition (per element or per example), elementwise?
REAL = RNG.standard_normal((4, 3))
SIGNS = np.sign(RNG.standard_normal((4, 3)))
BITS = (RNG.random((4, 3)) < 0.5).astype(np.float64)
PROBS = RNG.uniform(0.05, 0.95, (4, 3))
LOSSES = [
    ("mean_squared_error", REAL, RNG.standard_normal((4, 3)), lambda y, p: (p - y) ** 2),
    ("mean_absolute_error", REAL, RNG.standard_normal((4, 3)), lambda y, p: np.abs(p - y)),
    ("huber", REAL, 2 * RNG.standard_normal((4, 3)), _np_huber),
    ("binary_cross_entropy", BITS, PROBS, _np_bce),
    ("binary_cross_entropy_with_logits", BITS, 3 * REAL,  # -log(sigmoid(x)) = logaddexp(0, -x)
     lambda y, x: y * np.logaddexp(0, -x) + (1 - y) * np.logaddexp(0, x)),
    ("hinge", SIGNS, REAL, lambda y, p: np.maximum(1 - y * p, 0)),
    ("log_cosh", REAL, RNG.standard_normal((4, 3)), lambda y, p: np.log(np.cosh(p - y))),
    ("categorical_cross_entropy", _probabilities((4, 3), 1), _probabilities((4, 3), 2), _np_categorical),
    ("cosine_similarity", REAL, RNG.standard_normal((4, 3)),
     lambda y, p: -(_np_unit(y) * _np_unit(p)).sum(-1)),
    ("kl_divergence", _probabilities((4, 3), 3), _probabilities((4, 3), 4), _np_kl),
]
CASES = [pytest.param(*case, id=case[0]) for case in LOSSES]



@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("name", "labels", "predictions", "definition"), CASES)
def test_losses_match_their_definitions(backend, name, labels, predictions, definition, reduction):
    want = definition(labels, predictions)
    want = {"mean": np.mean, "sum": np.sum, "none": np.asarray}[reduction](want)
    got = getattr(tp.losses, name)(labels, predictions, reduction=reduction)
    assert got.dtype is tp.float64 and got.shape == np.shape(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-14)


def test_the_default_reduction_is_the_mean():
    for name, labels, predictions, definition in LOSSES:
        got = getattr(tp.losses, name)(labels.astype(np.float32), predictions.astype(np.float32))
        assert got.dtype is tp.float32 and got.shape == ()
        np.testing.assert_allclose(got.item(), np.mean(definition(labels, predictions)), rtol=2e-5, atol=1e-6)


# settings and inputs the table above does not reach: a huber delta, logits far in the tails
# (where a naive log(sigmoid) loses every digit), kl_divergence as torch's "batchmean" of
# log-probabilities (the mean over examples of each example's sum)
MORE = [
    pytest.param("huber", {"delta": 0.7}, 3 * PROBS, REAL, lambda y, p: _np_huber(y, p, 0.7),
                 id="huber-delta"),
    pytest.param("binary_cross_entropy_with_logits", {}, BITS, 30 * REAL,
                 lambda y, x: y * np.logaddexp(0, -x) + (1 - y) * np.logaddexp(0, x), id="bce-logits-tails"),
    pytest.param("kl_divergence", {}, _probabilities((5, 4), 1), _probabilities((5, 4), 2),
                 lambda y, p: (y * (np.log(y) - np.log(p))).sum(-1), id="kl-batchmean"),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("name", "kwargs", "labels", "predictions", "definition"), MORE)
def test_loss_settings_and_tails(backend, name, kwargs, labels, predictions, definition, reduction):
    want = {"mean": np.mean, "sum": np.sum, "none": np.asarray}[reduction](definition(labels, predictions))
    got = getattr(tp.losses, name)(labels, predictions, reduction=reduction, **kwargs)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-15)


def test_class_axis():
    y, p = _probabilities((4, 3), 5), _probabilities((4, 3), 6)
    got = tp.losses.categorical_cross_entropy(y.T, p.T, axis=0, reduction="none")
    np.testing.assert_allclose(got.numpy(), _np_categorical(y, p), rtol=1e-12)
    np.testing.assert_allclose(tp.losses.kl_divergence(y.T, p.T, axis=0, reduction="none").numpy(),
                               _np_kl(y, p), rtol=1e-12)


def test_softmax_cross_entropies_are_reexported():
    assert tp.losses.softmax_cross_entropy is tp.nn.softmax_cross_entropy
    assert tp.losses.sparse_softmax_cross_entropy is tp.nn.sparse_softmax_cross_entropy


@pytest.mark.filterwarnings("error")
def test_stable_losses_at_extremes(backend):
    e = np.array([-1000.0, -30.0, 0.0, 30.0, 1000.0])
    np.testing.assert_allclose(tp.losses.log_cosh(np.zeros(5), e, reduction="none").numpy(),
                               np.abs(e) + np.log1p(np.exp(-2 * np.abs(e))) - math.log(2), rtol=1e-12)
    got = tp.losses.binary_cross_entropy_with_logits(np.ones(5), e, reduction="none").numpy()
    np.testing.assert_allclose(got, np.logaddexp(0, -e), rtol=1e-12)
    clipped = tp.losses.binary_cross_entropy(np.array([1.0, 0.0]), np.array([0.0, 1.0]), reduction="none")
    np.testing.assert_allclose(clipped.numpy(), -math.log(EPS), rtol=1e-6)  # Keras's clipping: finite


@pytest.mark.parametrize("name", tp.losses.__all__)
def test_loss_errors(name):
    loss = getattr(tp.losses, name)
    if name.startswith("sparse"):
        return  # (tested in test_ops_nn)
    with pytest.raises(tp.ShapeError, match=f"{name}: reduction='avg' is not one of 'mean', 'sum', 'none'"):
        loss(np.ones((2, 3)), np.ones((2, 3)), reduction="avg")
    if name != "softmax_cross_entropy":
        with pytest.raises(tp.ShapeError, match=f"{name}: labels have shape \\(2, 3\\) but predictions "):
            loss(np.ones((2, 3)), np.ones(3))
        with pytest.raises(tp.DTypeError, match=f"{name} takes real numbers"):
            loss(np.ones(3), np.ones(3, np.complex64))


def test_huber_needs_a_positive_delta():
    with pytest.raises(tp.ShapeError, match="huber: delta must be positive, got 0.0"):
        tp.losses.huber(np.ones(2), np.ones(2), delta=0.0)


@pytest.mark.parametrize("name", ["categorical_cross_entropy", "cosine_similarity", "kl_divergence"])
def test_distribution_losses_need_a_class_axis(name):
    with pytest.raises(tp.ShapeError, match=f"{name} needs at least one dimension"):
        getattr(tp.losses, name)(1.0, 1.0)


# -- gradients ---------------------------------------------------------------------------------
SMOOTH = {"mean_squared_error", "binary_cross_entropy", "binary_cross_entropy_with_logits", "log_cosh",
          "categorical_cross_entropy", "cosine_similarity", "kl_divergence"}


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize(("name", "labels", "predictions", "definition"), CASES)
def test_loss_gradients(backend, name, labels, predictions, definition, reduction):
    loss = getattr(tp.losses, name)
    y, p = labels[:2], predictions[:2]
    if name == "huber":  # clear of the kinks at |error| == delta and 0
        p = y + np.array([[0.5, -0.4, 1.6], [-2.0, 0.3, -0.7]])
    if name in ("mean_absolute_error", "hinge"):
        p = p + np.where(np.abs(p - y) < 0.2, 0.5, 0.0)
        if name == "hinge":
            p = np.where(np.abs(1 - y * p) < 0.2, p + 0.5 * y, p)
    order = 3 if name in SMOOTH and reduction == "mean" else 2
    check_gradients(lambda a, b: loss(a, b, reduction=reduction), y, p, order=order)
