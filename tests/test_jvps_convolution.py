"""JVP rules of the convolution kernels (Conv2D, Conv3D and their backprop kernels, each
bilinear in its two tensor inputs) against jax.lax.conv_general_dilated and its jax.vjp, on both
backends, with tangents on both inputs; each rule against its transposed gradient; and forward
over reverse (hvp) in the input and in the filter."""

from __future__ import annotations

import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits  # noqa: F401  (jax_in_64_bits: autouse)
from _jvp_checks import (
    assert_hvp_matches_jax,
    assert_jvp_matches_jax,
    assert_rule_matches_transposed,
    backend,  # noqa: F401  (autouse: on both backends)
    random,
)

LAX_FORMATS = {"NHWC": ("NHWC", "HWIO", "NHWC"), "NCHW": ("NCHW", "HWIO", "NCHW"),
               "NDHWC": ("NDHWC", "DHWIO", "NDHWC")}
GEOMETRIES = [
    pytest.param((1, 5, 4, 2), (3, 2, 2, 3), dict(strides=(2, 1), padding=((1, 0), (1, 1)), dilations=(1, 2),
                                                  groups=1, data_format="NHWC"), id="2d"),
    pytest.param((2, 4, 3, 3), (2, 2, 2, 4), dict(strides=(1, 1), padding=((0, 1), (1, 0)), dilations=(1, 1),
                                                  groups=2, data_format="NCHW"), id="2d-groups-nchw"),
    pytest.param((1, 3, 4, 3, 1), (2, 2, 2, 1, 2),
                 dict(strides=(1, 2, 1), padding=((0, 0), (1, 0), (0, 1)), dilations=(1, 1, 2), groups=1,
                      data_format="NDHWC"), id="3d"),
]


def lax_conv(attrs):
    def conv(x, w):
        return jax.lax.conv_general_dilated(
            x, w, attrs["strides"], attrs["padding"], rhs_dilation=attrs["dilations"],
            dimension_numbers=LAX_FORMATS[attrs["data_format"]], feature_group_count=attrs["groups"])
    return conv


def names(x_shape):
    return ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter") if len(x_shape) == 4 else \
        ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")


def out_shape(x_shape, w_shape, attrs):
    return lax_conv(attrs)(jax.numpy.zeros(x_shape), jax.numpy.zeros(w_shape)).shape


@pytest.mark.parametrize(("x_shape", "w_shape", "attrs"), GEOMETRIES)
def test_jvp_matches_jax(x_shape, w_shape, attrs):
    conv, backprop_input, backprop_filter = names(x_shape)
    ref = lax_conv(attrs)
    y_shape = out_shape(x_shape, w_shape, attrs)
    x, w, dy = random(x_shape, 0), random(w_shape, 1), random(y_shape, 2)
    assert_jvp_matches_jax(lambda x, w: tp.run_kernel(conv, [x, w], attrs), ref, x, w)
    assert_jvp_matches_jax(
        lambda dy, w: tp.run_kernel(backprop_input, [dy, w], dict(attrs, input_shape=x_shape)),
        lambda dy, w: jax.vjp(lambda x: ref(x, w), x)[1](dy)[0], dy, w)
    assert_jvp_matches_jax(
        lambda x, dy: tp.run_kernel(backprop_filter, [x, dy], dict(attrs, filter_shape=w_shape)),
        lambda x, dy: jax.vjp(lambda w: ref(x, w), w)[1](dy)[0], x, dy)


@pytest.mark.parametrize(("x_shape", "w_shape", "attrs"), GEOMETRIES[:1] + GEOMETRIES[2:])
def test_rules_match_transposed_gradient(x_shape, w_shape, attrs):
    conv, backprop_input, backprop_filter = names(x_shape)
    x, w, dy = random(x_shape, 0), random(w_shape, 1), random(out_shape(x_shape, w_shape, attrs), 2)
    assert_rule_matches_transposed(conv, [x, w], attrs)
    assert_rule_matches_transposed(backprop_input, [dy, w], dict(attrs, input_shape=x_shape))
    assert_rule_matches_transposed(backprop_filter, [x, dy], dict(attrs, filter_shape=w_shape))


def test_hvp_in_input_and_filter():
    x, w = random((1, 4, 4, 2), 0), random((2, 2, 2, 2), 1)

    def f(x, w):
        return tp.sum(tp.sin(tp.nn.conv(x, w, strides=2, padding="SAME")))

    def f_jax(x, w):
        return jax.numpy.sum(jax.numpy.sin(jax.lax.conv_general_dilated(
            x, w, (2, 2), "SAME", dimension_numbers=LAX_FORMATS["NHWC"])))

    assert_hvp_matches_jax(lambda x: f(x, w), lambda x: f_jax(x, w), x)
    assert_hvp_matches_jax(lambda w: f(x, w), lambda w: f_jax(x, w), w)
