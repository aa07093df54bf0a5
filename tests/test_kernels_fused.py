"""The fused kernels (FusedMatMul, FusedConv2D, FusedDepthwiseConv2D) on each backend: values
against jnp.matmul / jax.lax.conv_general_dilated plus the bias through jax.nn's activations,
computed in float64 (float32 and the half floats too), both data formats, the optional inputs
present and absent; the specs' errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import raises_for, run, sample

ACTIVATIONS = ("linear", "relu", "relu6", "elu", "leakyrelu", "prelu", "sigmoid")
ZERO = np.zeros((), np.float64)


def _jax_activation(z, activation, alpha=0.2, weights=None):
    return {
        "linear": lambda: z,
        "relu": lambda: jax.nn.relu(z),
        "relu6": lambda: jax.nn.relu6(z),
        "elu": lambda: jax.nn.elu(z),
        "leakyrelu": lambda: jax.nn.leaky_relu(z, alpha),
        "prelu": lambda: jnp.where(z > 0, z, weights * z),
        "sigmoid": lambda: jax.nn.sigmoid(z),
    }[activation]()


def _close(got, want, dtype):
    tol = {tp.float64: 1e-12, tp.float32: 2e-5, tp.float16: 2e-2, tp.bfloat16: 1e-1}[dtype]
    assert got.dtype == dtype.numpy
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [tp.float64, tp.float32], ids=str)
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_fused_matmul_agrees_with_jax(activation, dtype):
    a, b = sample((2, 3, 4), dtype, -2, 2, seed=1), sample((4, 5), dtype, -2, 2, seed=2)
    bias, weights = sample((5,), dtype, -1, 1, seed=3), sample((3, 1), dtype, 0.1, 0.9, seed=4)
    with jax.enable_x64(True):
        z = jnp.matmul(a.astype(np.float64), b.astype(np.float64)) + bias.astype(np.float64)
        want = _jax_activation(z, activation, 0.3, weights.astype(np.float64))
    prelu = weights if activation == "prelu" else np.zeros((), dtype.numpy)
    got = run(
        "FusedMatMul",
        {"a": a, "b": b, "bias": bias, "prelu_weights": prelu},
        {"activation": activation, "has_bias": True, "leakyrelu_alpha": 0.3},
    )
    _close(got, want, dtype)


@pytest.mark.parametrize(("ta", "tb"), [(True, False), (False, True), (True, True)])
def test_fused_matmul_transposes_without_a_bias(ta, tb):
    x, y = sample((2, 1, 4, 3), tp.float64, seed=1), sample((3, 5), tp.float64, seed=2)
    a = np.swapaxes(x, -1, -2) if ta else x
    b = np.swapaxes(y, -1, -2) if tb else y
    got = run(
        "FusedMatMul",
        {"a": a, "b": b, "bias": np.full((1,), 5.0), "prelu_weights": ZERO},
        {"activation": "relu", "transpose_a": ta, "transpose_b": tb},
    )
    np.testing.assert_allclose(got, np.maximum(x @ y, 0), rtol=1e-12, atol=1e-12)  # has_bias False: no bias


def _lax_conv(x, w, attrs, groups):
    fmt = attrs.get("data_format", "NHWC")
    strides = attrs.get("strides", (1, 1))
    with jax.enable_x64(True):
        return jax.lax.conv_general_dilated(
            jnp.asarray(x, jnp.float64),
            jnp.asarray(w, jnp.float64),
            strides,
            attrs.get("padding", ((0, 0),) * 2),
            rhs_dilation=attrs.get("dilations", (1, 1)),
            dimension_numbers=(fmt, "HWIO", fmt),
            feature_group_count=groups,
        )


CONVS = [
    pytest.param((2, 5, 4, 3), (3, 2, 3, 4), {}, id="plain"),
    pytest.param(
        (1, 4, 6, 5),
        (2, 3, 2, 4),
        {
            "strides": (2, 1),
            "padding": ((1, 0), (1, 1)),
            "dilations": (1, 2),
            "groups": 2,
            "data_format": "NCHW",
        },
        id="nchw-groups",
    ),
]


@pytest.mark.parametrize("activation", ["relu", "elu", "prelu", "sigmoid"])
@pytest.mark.parametrize(("xs", "ws", "attrs"), CONVS)
def test_fused_conv2d_agrees_with_lax(xs, ws, attrs, activation):
    x, w = sample(xs, tp.float64, seed=1), sample(ws, tp.float64, seed=2)
    bias = sample((ws[-1],), tp.float64, seed=3)
    first = attrs.get("data_format") == "NCHW"
    weights = sample((ws[-1], 1, 1) if first else (ws[-1],), tp.float64, 0.1, 0.9, seed=4)
    with jax.enable_x64(True):
        z = _lax_conv(x, w, attrs, attrs.get("groups", 1)) + (bias[:, None, None] if first else bias)
        want = _jax_activation(z, activation, weights=weights)
    got = run(
        "FusedConv2D",
        {"x": x, "filter": w, "bias": bias, "prelu_weights": weights if activation == "prelu" else ZERO},
        {**attrs, "activation": activation, "has_bias": True},
    )
    _close(got, want, tp.float64)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_depthwise_conv2d_agrees_with_lax(fmt):
    xs = (1, 5, 4, 3) if fmt == "NHWC" else (1, 3, 5, 4)
    x, w = sample(xs, tp.float32, seed=1), sample((2, 2, 3, 2), tp.float32, seed=2)
    bias = sample((6,), tp.float32, seed=3)
    attrs = {"strides": (1, 2), "padding": ((1, 1), (0, 1)), "data_format": fmt}
    with jax.enable_x64(True):
        z = _lax_conv(x, w.reshape(2, 2, 1, 6), attrs, 3) + (bias[:, None, None] if fmt == "NCHW" else bias)
        want = jax.nn.leaky_relu(z, 0.2)
    got = run(
        "FusedDepthwiseConv2D",
        {"x": x, "filter": w, "bias": bias, "prelu_weights": ZERO.astype(np.float32)},
        {**attrs, "activation": "leakyrelu", "has_bias": True},
    )
    _close(got, want, tp.float32)


@pytest.mark.parametrize("dtype", [tp.float16, tp.bfloat16], ids=str)
def test_half_floats_keep_their_dtype(dtype):
    a, b, bias = (
        sample((3, 4), dtype, -1, 1, seed=1),
        sample((4, 2), dtype, -1, 1, seed=2),
        sample((2,), dtype, seed=3),
    )
    z = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    got = run(
        "FusedMatMul",
        {"a": a, "b": b, "bias": bias, "prelu_weights": np.zeros((), dtype.numpy)},
        {"activation": "sigmoid", "has_bias": True},
    )
    _close(got, 1 / (1 + np.exp(-z)), dtype)
    x, w = sample((1, 3, 3, 2), dtype, -1, 1, seed=4), sample((2, 2, 2, 2), dtype, -1, 1, seed=5)
    got = run(
        "FusedConv2D",
        {"x": x, "filter": w, "bias": bias, "prelu_weights": np.zeros((), dtype.numpy)},
        {"activation": "relu6", "has_bias": True},
    )
    _close(got, np.clip(np.asarray(_lax_conv(x, w, {}, 1)) + bias.astype(np.float64), 0, 6), dtype)


def test_errors():
    a, b, zero = np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32), np.zeros((), np.float32)
    raises_for(
        "FusedMatMul",
        tp.ShapeError,
        {"a": a, "b": b, "bias": np.zeros(3, np.float32), "prelu_weights": zero},
        {"has_bias": True},
        "the bias (shape (3,))",
        "product's shape (2, 4)",
    )
    raises_for(
        "FusedMatMul",
        tp.ShapeError,
        {"a": a, "b": b, "bias": zero, "prelu_weights": np.zeros(5, np.float32)},
        {"activation": "prelu"},
        "prelu weights (shape (5,))",
    )
    raises_for(
        "FusedMatMul",
        tp.ShapeError,
        {"a": a[0], "b": b, "bias": zero, "prelu_weights": zero},
        None,
        "at least 2 dimensions",
    )
    with pytest.raises(tp.ShapeError, match="activation must be one of"):
        tp.run_kernel(
            "FusedMatMul", {"a": a, "b": b, "bias": zero, "prelu_weights": zero}, {"activation": "tanh"}
        )
    raises_for(
        "FusedMatMul",
        tp.DTypeError,
        {"a": a, "b": b, "bias": zero.astype(np.float64), "prelu_weights": zero},
        None,
        "share one dtype",
    )
    x, w = np.zeros((1, 3, 3, 2), np.float32), np.zeros((2, 2, 2, 4), np.float32)
    raises_for(
        "FusedConv2D",
        tp.ShapeError,
        {"x": x, "filter": w, "bias": np.zeros(3, np.float32), "prelu_weights": zero},
        {"has_bias": True},
        "(4,), or a scalar",
    )
    raises_for(
        "FusedDepthwiseConv2D",
        tp.ShapeError,
        {"x": x, "filter": np.zeros((2, 2, 3, 1), np.float32), "bias": zero, "prelu_weights": zero},
        None,
        "takes 3 channels",
        "has 2",
    )
