"""JVP rules of the fused kernels (FusedMatMul, FusedConv2D, FusedDepthwiseConv2D) with every
activation: tp.jvp in all four inputs against jax.jvp of the unfused composition in float64 on
both backends, each rule against its gradient transposed, hvp against jax's."""

from __future__ import annotations

import numpy as np
import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jax, jnp

pytestmark = checks.ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS

ACTIVATIONS = {
    "linear": lambda z, w: z,
    "relu": lambda z, w: jax.nn.relu(z),
    "relu6": lambda z, w: jax.nn.relu6(z),
    "elu": lambda z, w: jax.nn.elu(z),
    "sigmoid": lambda z, w: jax.nn.sigmoid(z),
    "leakyrelu": lambda z, w: jnp.where(z >= 0, z, -0.5 * z),
    "prelu": lambda z, w: jnp.where(z > 0, z, w * z),
}
A, B, BIAS, WEIGHTS = (
    checks.RNG.standard_normal((3, 4)),
    checks.RNG.standard_normal((5, 4)),
    checks.RNG.standard_normal((5,)),
    checks.RNG.uniform(0.1, 0.9, (5,)),
)


def _fused_matmul(activation):
    def ours(a, b, bias, weights):
        return tp.run_kernel(
            "FusedMatMul",
            (a, b, bias, weights),
            {"activation": activation, "has_bias": True, "transpose_b": True, "leakyrelu_alpha": -0.5},
        )

    def theirs(a, b, bias, weights):
        return ACTIVATIONS[activation](a @ b.T + bias, weights)

    return ours, theirs


@pytest.mark.parametrize("activation", list(ACTIVATIONS))
def test_fused_matmul_jvp_matches_jax(activation):
    checks.assert_jvp_matches_jax(*_fused_matmul(activation), A, B, BIAS, WEIGHTS)


CONVS = [  # (kernel, x shape, filter shape, attrs, jax's feature groups, activation)
    ("FusedConv2D", (1, 4, 4, 2), (2, 2, 2, 3), {"strides": (2, 1), "padding": ((1, 0), (0, 1))}, 1, "relu"),
    (
        "FusedConv2D",
        (1, 2, 4, 3),
        (2, 2, 1, 4),
        {"groups": 2, "data_format": "NCHW", "dilations": (1, 2)},
        2,
        "prelu",
    ),
    ("FusedDepthwiseConv2D", (1, 3, 4, 2), (2, 2, 2, 2), {"padding": ((0, 1), (1, 1))}, 2, "elu"),
]


def _jax_conv(x, w, bias, attrs, groups, depthwise):
    nchw = attrs.get("data_format") == "NCHW"
    if depthwise:
        h, k, c, m = w.shape
        w = w.reshape(h, k, 1, c * m)
    out = jax.lax.conv_general_dilated(
        x,
        w,
        attrs.get("strides", (1, 1)),
        list(attrs.get("padding", ((0, 0), (0, 0)))),
        rhs_dilation=attrs.get("dilations", (1, 1)),
        feature_group_count=groups,
        dimension_numbers=("NCHW" if nchw else "NHWC", "HWIO", "NCHW" if nchw else "NHWC"),
    )
    return out + (bias.reshape(-1, 1, 1) if nchw else bias)


@pytest.mark.parametrize(
    ("name", "xs", "ws", "attrs", "groups", "activation"), CONVS, ids=["conv", "conv-nchw", "depthwise"]
)
def test_fused_conv_jvp_matches_jax(name, xs, ws, attrs, groups, activation):
    x, w = checks.RNG.standard_normal(xs), checks.RNG.standard_normal(ws)
    nchw = attrs.get("data_format") == "NCHW"
    channels = ws[-1] * (ws[-2] if name == "FusedDepthwiseConv2D" else 1)
    bias = checks.RNG.standard_normal((channels,))
    weights = checks.RNG.uniform(0.1, 0.9, (channels, 1, 1) if nchw else (channels,))

    def ours(a, b, c, d):
        return tp.run_kernel(name, (a, b, c, d), {**attrs, "activation": activation, "has_bias": True})

    def theirs(a, b, c, d):
        z = _jax_conv(a, b, c, attrs, groups, name == "FusedDepthwiseConv2D")
        return ACTIVATIONS[activation](z, d)

    checks.assert_jvp_matches_jax(ours, theirs, x, w, bias, weights)


def test_rules_match_transposed_gradients():  # (FusedConv2D's is the depthwise one's, grouped)
    checks.assert_rule_matches_transposed(
        "FusedMatMul", (A, B.T.copy(), BIAS, WEIGHTS), {"activation": "prelu", "has_bias": True}
    )
    x, w = checks.RNG.standard_normal((1, 3, 3, 2)), checks.RNG.standard_normal((2, 2, 2, 2))
    bias = checks.RNG.standard_normal((2,))
    checks.assert_rule_matches_transposed(
        "FusedDepthwiseConv2D",
        (x, w, np.tile(bias, 2), np.zeros(())),
        {"activation": "sigmoid", "has_bias": True},
        differentiable=(0, 1, 2),
    )


def test_hvp_matches_jax():
    ours, theirs = _fused_matmul("sigmoid")
    checks.assert_hvp_matches_jax(
        lambda a: tp.sum(ours(a, B, BIAS, WEIGHTS) ** 2),
        lambda a: jnp.sum(theirs(a, B, BIAS, WEIGHTS) ** 2),
        A,
    )
