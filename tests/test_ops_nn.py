"""tp.nn against numpy references: activations, softmax family, logsumexp stability, one_hot,
cross-entropy losses and their reductions, errors, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)


def _np_logsumexp(x, axis=None, keepdims=False):
    x = np.asarray(x, np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _np_log_softmax(x, axis=-1):
    return x - _np_logsumexp(x, axis=axis, keepdims=True)


def _close(result, expected, rtol=1e-5, atol=1e-6):
    got = result.numpy()
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def test_namespace():
    assert set(tp.nn.__all__) == {
        "relu",
        "sigmoid",
        "softmax",
        "log_softmax",
        "logsumexp",
        "one_hot",
        "softmax_cross_entropy",
        "sparse_softmax_cross_entropy",
        # activations and dropout (issue 15)
        "elu", "selu", "leaky_relu", "prelu", "relu6", "softplus", "gelu", "silu", "swish", "log_sigmoid",
        "mish", "step", "dropout",
    } | {"conv", "conv_transpose", "depthwise_conv", "separable_conv", "fused_conv", "fused_matmul",
         "avg_pool", "dilation2d", "max_pool", "max_pool_with_argmax", "batch_norm", "batch_norm_train",
         "layer_norm", "local_response_normalization", "moments", "batch_to_space_nd", "depth_to_space",
         "space_to_batch_nd", "space_to_depth", "dot_product_attention", "embedding"} | {
        "initializers"} | {  # a module, as jax.nn.initializers (issue 33)
        "Module", "Sequential", "Lambda", "set_seed"} | {  # modules (issue 33 item 1)
        "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D",
        "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
        "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
        "AdaptiveAvgPool2D", "AdaptiveMaxPool2D", "Flatten", "Reshape", "Activation", "ReLU", "GELU",
        "Sigmoid", "Tanh", "Softmax", "LeakyReLU", "ELU", "SiLU", "BatchNorm", "LayerNorm", "GroupNorm",
        "RMSNorm", "Dropout", "Embedding", "MultiHeadAttention"} | {  # layers (issue 33 item 3, 34)
        "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "SimpleRNN", "LSTM", "GRU", "Bidirectional"}
    assert tp.nn.sigmoid is tp.sigmoid
    assert not hasattr(tp.ops, "softmax_cross_entropy") or "softmax_cross_entropy" not in tp.__all__


@pytest.mark.parametrize(
    "data",
    [X, X.astype(np.float64), np.arange(-3, 3, dtype=np.int32), np.float32(-2)],
    ids=["f32", "f64", "int32", "0d"],
)
def test_relu(data):
    out = tp.nn.relu(data)
    assert out.dtype.numpy == np.asarray(data).dtype
    _close(out, np.maximum(data, 0))


def test_relu_refuses_bool():
    with pytest.raises(tp.DTypeError, match="relu does not accept bool"):
        tp.nn.relu([True])


def test_sigmoid():
    _close(tp.nn.sigmoid(X), 1 / (1 + np.exp(-X.astype(np.float64))))


@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
def test_softmax_and_log_softmax(axis):
    expected = _np_log_softmax(X.astype(np.float64), axis=axis)
    _close(tp.nn.log_softmax(X, axis=axis), expected, rtol=1e-5, atol=1e-5)
    _close(tp.nn.softmax(X, axis=axis), np.exp(expected), rtol=1e-5)
    assert tp.nn.softmax(X, axis=axis).dtype is tp.float32


def test_softmax_of_ints_and_large_values():
    _close(tp.nn.softmax([1, 2, 3]), np.exp(_np_log_softmax(np.array([1.0, 2.0, 3.0]))))
    big = np.array([1000.0, 1000.0, -1000.0], np.float32)
    _close(tp.nn.softmax(big), np.array([0.5, 0.5, 0.0]))
    _close(tp.nn.log_softmax(big), np.array([-np.log(2), -np.log(2), -2000 - np.log(2)]), rtol=1e-5)


@pytest.mark.parametrize("op", [tp.nn.softmax, tp.nn.log_softmax])
def test_softmax_errors(op):
    with pytest.raises(tp.ShapeError, match=f"{op.__name__}: axis 3 is out of range for a 3-d input"):
        op(X, axis=3)
    with pytest.raises(tp.ShapeError, match=f"{op.__name__} needs at least one dimension"):
        op(np.float32(1.0))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp(axis, keepdims):
    out = tp.nn.logsumexp(X, axis=axis, keepdims=keepdims)
    assert out.dtype is tp.float32
    if axis == ():
        _close(out, X)
        return
    _close(out, _np_logsumexp(X, axis=axis, keepdims=keepdims), rtol=1e-5)


@pytest.mark.parametrize(
    "data,expected",
    [
        ([1000.0, 1000.0], 1000.0 + np.log(2)),
        ([-1000.0, -1000.0], -1000.0 + np.log(2)),
        # log(0) warns in numpy; the numpy kernels do not silence floating-point warnings
        pytest.param([-np.inf, -np.inf], -np.inf, marks=pytest.mark.filterwarnings("ignore::RuntimeWarning")),
        ([np.inf, 0.0], np.inf),
        ([-np.inf, 0.0], 0.0),
    ],
)
def test_logsumexp_is_stable(data, expected):
    out = tp.nn.logsumexp(np.asarray(data, np.float32))
    np.testing.assert_allclose(out.item(), expected, rtol=1e-6)


def test_logsumexp_int_input_and_error():
    assert tp.nn.logsumexp([1, 2]).dtype is tp.float32
    with pytest.raises(tp.ShapeError, match="logsumexp: axis 2 is out of range for a 1-d"):
        tp.nn.logsumexp([1.0], axis=2)


@pytest.mark.parametrize("indices,depth", [([0, 2, 1], 3), ([[1], [0]], 2), (2, 4), ([], 3), ([0, 5, -1], 3)])
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64, tp.int32, tp.bool])
def test_one_hot(indices, depth, dtype):
    idx = np.asarray(indices, np.int64)
    expected = (idx[..., None] == np.arange(depth)).astype(dtype.numpy)
    out = tp.nn.one_hot(idx, depth, dtype=dtype)
    assert out.dtype is dtype
    np.testing.assert_array_equal(out.numpy(), expected)


def test_one_hot_values_and_errors():
    out = tp.nn.one_hot([1, 0], 2, on_value=5.0, off_value=-1.0)
    np.testing.assert_array_equal(out.numpy(), [[-1.0, 5.0], [5.0, -1.0]])
    with pytest.raises(tp.DTypeError, match="one_hot: indices must be integers, got float32"):
        tp.nn.one_hot([0.5], 3)
    with pytest.raises(tp.ShapeError, match="one_hot: depth must be >= 0, got -1"):
        tp.nn.one_hot([0], -1)


LOGITS = RNG.standard_normal((4, 5)).astype(np.float32)
CLASSES = np.array([0, 4, 2, 2])
ONE_HOT = np.eye(5, dtype=np.float32)[CLASSES]
PROBS = np.exp(_np_log_softmax(RNG.standard_normal((4, 5)))).astype(np.float32)


@pytest.mark.parametrize("labels", [ONE_HOT, PROBS], ids=["one_hot", "probs"])
@pytest.mark.parametrize("reduction,ref", [("mean", np.mean), ("sum", np.sum), ("none", lambda v: v)])
def test_softmax_cross_entropy(labels, reduction, ref):
    per_row = -np.sum(labels * _np_log_softmax(LOGITS.astype(np.float64)), axis=-1)
    out = tp.nn.softmax_cross_entropy(labels, LOGITS, reduction=reduction)
    assert out.dtype is tp.float32
    _close(out, ref(per_row), rtol=1e-5)


def test_softmax_cross_entropy_other_axis_and_batch_dims():
    logits = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    labels = np.exp(_np_log_softmax(RNG.standard_normal((2, 5, 3)), axis=1))
    per = -np.sum(labels * _np_log_softmax(logits.astype(np.float64), axis=1), axis=1)
    _close(tp.nn.softmax_cross_entropy(labels, logits, axis=1, reduction="none"), per, rtol=1e-5)
    _close(tp.nn.softmax_cross_entropy(labels, logits, axis=1), per.mean(), rtol=1e-5)


@pytest.mark.parametrize("reduction,ref", [("mean", np.mean), ("sum", np.sum), ("none", lambda v: v)])
@pytest.mark.parametrize("label_dtype", [np.int64, np.int32])
def test_sparse_softmax_cross_entropy(reduction, ref, label_dtype):
    per_row = -_np_log_softmax(LOGITS.astype(np.float64))[np.arange(4), CLASSES]
    out = tp.nn.sparse_softmax_cross_entropy(CLASSES.astype(label_dtype), LOGITS, reduction=reduction)
    _close(out, ref(per_row), rtol=1e-5)
    dense = tp.nn.softmax_cross_entropy(ONE_HOT, LOGITS, reduction=reduction)
    _close(out, dense.numpy(), rtol=1e-6)


def test_sparse_softmax_cross_entropy_batch_dims():
    logits = RNG.standard_normal((2, 3, 4))
    labels = RNG.integers(0, 4, (2, 3))
    expected = -np.take_along_axis(_np_log_softmax(logits), labels[..., None], axis=-1)[..., 0]
    _close(tp.nn.sparse_softmax_cross_entropy(labels, logits, reduction="none"), expected)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (
            lambda: tp.nn.softmax_cross_entropy(ONE_HOT, LOGITS, reduction="avg"),
            tp.ShapeError,
            r"softmax_cross_entropy: reduction='avg' is not one of 'mean', 'sum', 'none'",
        ),
        (
            lambda: tp.nn.sparse_softmax_cross_entropy(CLASSES, LOGITS, reduction=None),
            ValueError,
            r"sparse_softmax_cross_entropy: reduction=None is not one of 'mean', 'sum', 'none'",
        ),
        (
            lambda: tp.nn.softmax_cross_entropy(ONE_HOT[:2], LOGITS),
            tp.ShapeError,
            r"softmax_cross_entropy: labels have shape \(2, 5\) but logits have \(4, 5\)",
        ),
        (
            lambda: tp.nn.sparse_softmax_cross_entropy(CLASSES[:3], LOGITS),
            tp.ShapeError,
            r"labels have shape \(3,\) and logits \(4, 5\); labels must have the logits' shape without",
        ),
        (
            lambda: tp.nn.sparse_softmax_cross_entropy(ONE_HOT, LOGITS),
            tp.DTypeError,
            r"sparse_softmax_cross_entropy: labels must be integer class indices, got float32",
        ),
        (
            lambda: tp.nn.sparse_softmax_cross_entropy([0, 1, 5, 0], LOGITS),
            tp.errors.IndexOutOfRangeError,
            r"sparse_softmax_cross_entropy: label 5 is out of range for 5 classes \(valid: 0..4\)",
        ),
        (
            lambda: tp.nn.sparse_softmax_cross_entropy([0, -1, 0, 0], LOGITS),
            IndexError,
            r"label -1 is out of range",
        ),
    ],
)
def test_loss_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "f",
    [
        lambda x: tp.nn.logsumexp(x, axis=(0, 2)),
        lambda x: tp.nn.logsumexp(x),
        lambda x: tp.nn.softmax(x, axis=1),
        lambda x: tp.nn.log_softmax(x, axis=0),
        lambda x: tp.nn.sigmoid(x),
        lambda x: tp.nn.softmax_cross_entropy(tp.nn.softmax(x * 0.5), x),
        lambda x: tp.nn.sparse_softmax_cross_entropy(np.zeros((3, 4), np.int64), x, reduction="sum"),
    ],
    ids=["logsumexp-axes", "logsumexp", "softmax", "log_softmax", "sigmoid", "softmax_ce", "sparse_ce"],
)
def test_differentiable(f):
    check_gradients(f, X.astype(np.float64), order=2)


def test_relu_gradient():
    check_gradients(tp.nn.relu, np.array([-1.5, 0.5, 2.0]), order=1)


def test_logsumexp_gradient_is_softmax_even_for_huge_inputs():
    x = np.array([1000.0, 1000.0, -1000.0])
    g = tp.grad(lambda t: tp.nn.logsumexp(t))(x)
    np.testing.assert_allclose(g.numpy(), [0.5, 0.5, 0.0])
