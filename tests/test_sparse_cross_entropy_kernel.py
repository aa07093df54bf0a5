"""SparseSoftmaxCrossEntropyWithLogits on both backends: both outputs against a float64 numpy
definition (every float and label dtype, huge logits, labels out of range give NaN rows), the
spec's errors, gradients by finite differences to third order (a cotangent on backprop too),
the JVP rule against jax.jvp and its gradient transposed, vmap against a loop; and
sparse_softmax_cross_entropy running it for (rows, classes) logits with the values and
derivatives of the one-hot definition."""

from __future__ import annotations

import numpy as np
import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jax, jnp
from tensorplug.profiler import count_kernels
from tensorplug.testing import check_gradients

pytestmark = checks.ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS

NAME = "SparseSoftmaxCrossEntropyWithLogits"
FEATURES = checks.RNG.standard_normal((5, 4)) * 2
LABELS = np.array([2, 0, 3, 3, 1])
TOL = {tp.float16: 4e-3, tp.bfloat16: 3.2e-2, tp.float32: 2e-6, tp.float64: 1e-13}


def _xent(features, labels):
    return tp.run_kernel(NAME, {"features": features, "labels": labels})


def _definition(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """loss = -log_softmax(features)[label], backprop = softmax - one_hot, in float64; NaN rows
    for labels out of range."""
    x = features.astype(np.float64)
    log_probs = x - x.max(axis=1, keepdims=True, initial=-np.inf)
    with np.errstate(divide="ignore"):  # (no classes: log(0), and every label is out of range)
        log_probs -= np.log(np.exp(log_probs).sum(axis=1, keepdims=True))
    classes = x.shape[1]
    one_hot = labels[:, None] == np.arange(classes)
    loss = -(log_probs * one_hot).sum(axis=1)
    backprop = np.exp(log_probs) - one_hot
    bad = (labels < 0) | (labels >= classes)
    loss[bad], backprop[bad] = np.nan, np.nan
    return loss, backprop


def _assert_outputs(got, features, labels, dtype):
    for g, want in zip(got, _definition(features, labels)):
        assert g.dtype is dtype
        np.testing.assert_allclose(np.asarray(g.numpy()).astype(np.float64), want, rtol=TOL[dtype],
                                   atol=TOL[dtype], equal_nan=True)


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [tp.float16, tp.bfloat16, tp.float32, tp.float64], ids=str)
def test_values_match_the_definition(dtype, label_dtype):
    half = tp.finfo(dtype).bits == 16
    features = (FEATURES / 2 if half else FEATURES).astype(dtype.numpy)
    labels = LABELS.astype(label_dtype)
    _assert_outputs(_xent(features, labels), features, labels, dtype)


def test_huge_logits_stay_finite():
    features = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]], np.float32)
    loss, backprop = _xent(features, np.array([0, 1]))
    assert np.all(np.isfinite(loss.numpy())) and np.all(np.isfinite(backprop.numpy()))
    _assert_outputs((loss, backprop), features, np.array([0, 1]), tp.float32)


def test_labels_out_of_range_give_rows_of_nan():
    labels = np.array([4, -1, 3, 0, 1])
    loss, backprop = _xent(FEATURES, labels)
    assert np.isnan(loss.numpy()[:2]).all() and np.isnan(backprop.numpy()[:2]).all()
    _assert_outputs((loss, backprop), FEATURES, labels, tp.float64)


@pytest.mark.parametrize(("rows", "classes"), [(0, 3), (2, 0), (1, 1)])
def test_empty_and_single_shapes(rows, classes):
    features, labels = np.zeros((rows, classes)), np.zeros(rows, np.int64)
    loss, backprop = _xent(features, labels)
    assert loss.shape == (rows,) and backprop.shape == (rows, classes)
    _assert_outputs((loss, backprop), features, labels, tp.float64)


def test_spec_errors():
    with pytest.raises(tp.ShapeError, match=r"features must be \(batch, classes\) and labels \(batch,\)"):
        _xent(FEATURES, LABELS[:3])
    with pytest.raises(tp.ShapeError, match="flatten the leading axes"):
        _xent(FEATURES[None], LABELS[None])
    with pytest.raises(tp.DTypeError, match="labels"):
        _xent(FEATURES, LABELS.astype(np.float64))
    with pytest.raises(tp.DTypeError, match="features"):
        _xent(FEATURES.astype(np.int64), LABELS)


def _both(features):
    """The two outputs weighted by fixed cotangents: a derivative reaches backprop's rule too."""
    loss, backprop = _xent(features, tp.asarray(LABELS))
    return tp.sum(loss * np.linspace(0.5, 2.0, 5)) + tp.sum(backprop * np.cos(FEATURES))


def test_gradients_by_finite_differences_to_third_order():
    check_gradients(_both, FEATURES, order=3)
    check_gradients(lambda f: _xent(f, tp.asarray(LABELS))[0], FEATURES, order=2)


def _jax_outputs(features):
    one_hot = jax.nn.one_hot(LABELS, 4)
    return -jnp.sum(jax.nn.log_softmax(features) * one_hot, axis=1), jax.nn.softmax(features) - one_hot


def _jax_both(features):
    loss, backprop = _jax_outputs(features)
    return jnp.sum(loss * jnp.linspace(0.5, 2.0, 5)) + jnp.sum(backprop * jnp.cos(FEATURES))


def test_jvp_matches_jax():
    checks.assert_jvp_matches_jax(lambda f: _xent(f, tp.asarray(LABELS)), _jax_outputs, FEATURES)


def test_hvp_through_both_outputs_matches_jax():
    checks.assert_hvp_matches_jax(_both, _jax_both, FEATURES)


def test_jvp_rule_matches_the_gradient_transposed():
    checks.assert_rule_matches_transposed(NAME, [FEATURES, LABELS], differentiable=[0])


@pytest.mark.parametrize(("in_axes", "labels"), [
    ((0, 0), np.stack([LABELS, LABELS[::-1]])),
    ((2, None), LABELS),
    ((1, 1), np.stack([LABELS, LABELS[::-1]], axis=1)),
], ids=str)
def test_vmap_matches_a_loop(in_axes, labels):
    features = np.stack([FEATURES, FEATURES[::-1] * 0.5], axis=in_axes[0])
    loss, backprop = tp.vmap(_xent, in_axes=in_axes)(tp.asarray(features), tp.asarray(labels))
    for i in range(2):
        example = np.take(features, i, axis=in_axes[0])
        example_labels = labels if in_axes[1] is None else np.take(labels, i, axis=in_axes[1])
        want = _definition(example, example_labels)
        np.testing.assert_allclose(loss.numpy()[i], want[0], rtol=1e-12)
        np.testing.assert_allclose(backprop.numpy()[i], want[1], rtol=1e-12, atol=1e-15)


def _one_hot_definition(labels, logits, reduction):
    return tp.nn.softmax_cross_entropy(tp.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype),
                                       logits, reduction=reduction)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_the_op_runs_the_kernel_with_the_one_hot_definitions_values_and_derivatives(reduction):
    labels, logits = tp.asarray(LABELS.astype(np.uint8)), tp.asarray(FEATURES)
    with count_kernels() as counted:
        got = tp.nn.sparse_softmax_cross_entropy(labels, logits, reduction=reduction)
    assert {name for name, *_ in counted.counts} >= {NAME}
    want = _one_hot_definition(labels, logits, reduction)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)

    def scalar(f):
        return lambda lg: tp.sum(f(lg) * (np.arange(5) + 1.0 if reduction == "none" else 1.0))
    ours = scalar(lambda lg: tp.nn.sparse_softmax_cross_entropy(labels, lg, reduction=reduction))
    theirs = scalar(lambda lg: _one_hot_definition(labels, lg, reduction))
    np.testing.assert_allclose(tp.grad(ours)(logits).numpy(), tp.grad(theirs)(logits).numpy(), rtol=1e-12)
    v = (tp.asarray(np.sin(FEATURES)),)
    np.testing.assert_allclose(tp.hvp(ours, (logits,), v)[0].numpy(), tp.hvp(theirs, (logits,), v)[0].numpy(),
                               rtol=1e-10, atol=1e-12)
    hessian_of_grad = tp.grad(lambda lg: tp.sum(tp.grad(ours)(lg) * np.sin(FEATURES)))(logits)
    want_hessian = tp.grad(lambda lg: tp.sum(tp.grad(theirs)(lg) * np.sin(FEATURES)))(logits)
    np.testing.assert_allclose(hessian_of_grad.numpy(), want_hessian.numpy(), rtol=1e-10, atol=1e-12)
    check_gradients(ours, FEATURES, order=2)


def test_the_op_under_jit_gives_nan_for_a_label_out_of_range():
    f = tp.jit(lambda lab, lg: tp.nn.sparse_softmax_cross_entropy(lab, lg, reduction="none"))
    got = f(tp.asarray(np.array([0, 9, 3, 1, 2])), tp.asarray(FEATURES)).numpy()
    assert np.isnan(got[1]) and np.isfinite(np.delete(got, 1)).all()


@pytest.mark.parametrize("shape", [(5,), (1, 5)], ids=str)
@pytest.mark.parametrize("dtype", [np.int8, np.uint16], ids=str)
def test_the_op_refuses_a_label_out_of_range_of_any_integer_dtype(shape, dtype):
    labels = np.array([0, 1, 4, 2, 1], dtype).reshape(shape)
    with pytest.raises(tp.IndexOutOfRangeError, match="label 4 is out of range for 4 classes"):
        tp.nn.sparse_softmax_cross_entropy(labels, FEATURES.reshape(shape + (4,)))
