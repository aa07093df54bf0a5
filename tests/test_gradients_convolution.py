"""Gradients of the convolution kernels against finite differences in float64, to second
order for every kernel (each one's gradient runs the other two, so this checks all the
gradients of the gradients), to third order for Conv2D; and through the tp.nn ops."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides

RNG = np.random.default_rng(7)

# (kernel names, x shape, filter shape, attrs): tiny, with strides, padding, dilation, groups
CASES = [
    pytest.param(2, (1, 3, 3, 2), (2, 2, 1, 2), {"strides": (2, 1), "padding": ((1, 0), (0, 1)), "groups": 2},
                 id="2d"),
    pytest.param(2, (1, 2, 4, 3), (1, 2, 2, 2), {"dilations": (1, 2), "data_format": "NCHW"}, id="2d-nchw"),
    pytest.param(3, (1, 2, 3, 2, 1), (1, 2, 2, 1, 2),
                 {"strides": (1, 2, 1), "padding": ((0, 0), (1, 1), (0, 1))}, id="3d"),
]
NAMES = {2: ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"),
         3: ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")}


def _dy_shape(rank, xs, ws, attrs):
    return tp.run_kernel(NAMES[rank][0], {"x": np.zeros(xs), "filter": np.zeros(ws)}, attrs).shape


@pytest.mark.parametrize(("rank", "xs", "ws", "attrs"), CASES)
def test_second_order(rank, xs, ws, attrs):
    conv, backprop_input, backprop_filter = NAMES[rank]
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    dy = RNG.standard_normal(_dy_shape(rank, xs, ws, attrs))
    check_gradients(lambda a, b: tp.run_kernel(conv, {"x": a, "filter": b}, attrs), x, w, order=2)
    check_gradients(lambda a, b: tp.run_kernel(backprop_input, {"dy": a, "filter": b},
                                               {**attrs, "input_shape": xs}), dy, w, order=2)
    check_gradients(lambda a, b: tp.run_kernel(backprop_filter, {"x": a, "dy": b},
                                               {**attrs, "filter_shape": ws}), x, dy, order=2)


def test_third_order_through_a_nonlinearity():
    attrs = {"strides": (1, 2), "padding": ((0, 1), (1, 0))}
    x, w = RNG.standard_normal((1, 2, 3, 1)), RNG.standard_normal((2, 2, 1, 1))
    check_gradients(lambda a, b: tp.tanh(tp.run_kernel("Conv2D", {"x": a, "filter": b}, attrs)), x, w,
                    order=3)


OPS = [
    pytest.param(lambda x, w: tp.nn.conv(x, w, 2, "SAME", dilation=1), (1, 5, 2), (2, 2, 3), id="conv-1d"),
    pytest.param(lambda x, w: tp.nn.conv(x, w, padding=1, groups=2, data_format="channels_first"),
                 (1, 2, 3, 2), (2, 2, 1, 2), id="conv-2d-groups"),
    pytest.param(lambda x, w: tp.nn.conv_transpose(x, w, 2, "SAME"), (1, 2, 2, 2), (2, 2, 1, 2),
                 id="conv_transpose"),
    pytest.param(lambda x, w: tp.nn.conv_transpose(x, w, 2, 0, output_padding=1), (1, 3, 2), (2, 2, 2),
                 id="conv_transpose-1d"),
    pytest.param(lambda x, w: tp.nn.depthwise_conv(x, w, padding="SAME"), (1, 3, 2, 2), (2, 2, 2, 1),
                 id="depthwise_conv"),
]


@pytest.mark.parametrize(("fn", "xs", "ws"), OPS)
def test_ops_second_order(fn, xs, ws):
    check_gradients(fn, RNG.standard_normal(xs), RNG.standard_normal(ws), order=2)


def test_separable_conv_first_order():
    x, dw = RNG.standard_normal((1, 3, 3, 2)), RNG.standard_normal((2, 2, 2, 1))
    pw = RNG.standard_normal((2, 3))
    check_gradients(lambda a, b, c: tp.nn.separable_conv(a, b, c, padding="SAME"), x, dw, pw)
