"""Convolution kernels (Conv2D, Conv3D and their backprop kernels) on each backend: values
against jax.lax.conv_general_dilated and its jax.vjp (float64 and float32, every geometry
attribute, both data formats), half floats, empty batches, the spec's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import message, raises_for, run, sample

CONV = {2: ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"),
        3: ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")}

# (x shape, filter shape, attrs): strides, explicit padding, dilations, groups, data formats
GEOMETRIES = [
    pytest.param((2, 6, 5, 3), (3, 2, 3, 4), {}, id="2d-plain"),
    pytest.param((2, 7, 6, 4), (3, 2, 2, 6), {"strides": (2, 1), "padding": ((1, 2), (0, 1)),
                                              "dilations": (1, 2), "groups": 2}, id="2d-all"),
    pytest.param((1, 4, 7, 6), (3, 2, 4, 6), {"strides": (1, 3), "padding": ((0, 0), (2, 1)),
                                              "dilations": (2, 1), "data_format": "NCHW"}, id="2d-nchw"),
    pytest.param((1, 6, 5, 4), (2, 2, 1, 8), {"strides": 2, "groups": 4}, id="2d-depthwise"),
    pytest.param((1, 5, 5, 1), (2, 2, 1, 1), {"strides": (3, 2), "padding": ((0, 1), (1, 0))}, id="2d-rest"),
    pytest.param((1, 5, 4, 6, 3), (2, 3, 2, 1, 6), {"strides": (1, 2, 1), "padding": ((1, 0), (0, 0), (1, 1)),
                                                    "dilations": (1, 1, 2), "groups": 3}, id="3d-all"),
    pytest.param((2, 2, 4, 3, 5), (2, 2, 2, 1, 4), {"strides": (2, 1, 1), "groups": 2,
                                                    "data_format": "NCDHW"}, id="3d-ncdhw"),
]


def _lax(x, w, attrs, dy=None):
    """(y, dx, dw, dy) from jax.lax.conv_general_dilated in float64 (dy random if not given)."""
    jax = pytest.importorskip("jax")
    rank = x.ndim - 2
    fmt = attrs.get("data_format", "NHWC" if rank == 2 else "NDHWC")
    strides, dil = (tuple(a) if isinstance(a, tuple) else (a,) * rank
                    for a in (attrs.get("strides", 1), attrs.get("dilations", 1)))
    pads = attrs.get("padding", ((0, 0),) * rank)
    with jax.enable_x64(True):
        def f(a, b):
            return jax.lax.conv_general_dilated(a, b, strides, pads, rhs_dilation=dil,
                                                dimension_numbers=(fmt, "DHW"[3 - rank:] + "IO", fmt),
                                                feature_group_count=attrs.get("groups", 1))
        y, vjp = jax.vjp(f, x.astype(np.float64), w.astype(np.float64))
        dy = sample(y.shape, tp.float64, seed=3) if dy is None else dy.astype(np.float64)
        dx, dw = vjp(dy)
        return np.asarray(y), np.asarray(dx), np.asarray(dw), dy


def _close(got, want, dtype):
    tol = {tp.float64: 1e-12, tp.float32: 2e-5, tp.float16: 2e-2, tp.bfloat16: 1e-1}[dtype]
    assert got.dtype == dtype.numpy
    scale = max(1.0, np.abs(want).max())
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol * scale)


_REFERENCES: dict[str, tuple[np.ndarray, ...]] = {}


@pytest.mark.parametrize("dtype", [tp.float64, tp.float32], ids=str)
@pytest.mark.parametrize(("xs", "ws", "attrs"), GEOMETRIES)
def test_conv_and_its_backprop_kernels_agree_with_lax(xs, ws, attrs, dtype):
    # float32 values in both dtypes: one reference for both, and for both backends
    x, w = (sample(s, tp.float32, seed=k).astype(dtype.numpy) for k, s in ((1, xs), (2, ws)))
    key = f"{xs}{ws}{attrs}"
    if key not in _REFERENCES:
        _REFERENCES[key] = _lax(x, w, attrs)
    y, dx, dw, dy = _REFERENCES[key]
    conv, backprop_input, backprop_filter = CONV[len(xs) - 2]
    _close(run(conv, {"x": x, "filter": w}, attrs), y, dtype)
    dy = dy.astype(dtype.numpy)
    _close(run(backprop_input, {"dy": dy, "filter": w}, {**attrs, "input_shape": xs}), dx, dtype)
    _close(run(backprop_filter, {"x": x, "dy": dy}, {**attrs, "filter_shape": ws}), dw, dtype)


@pytest.mark.parametrize("dtype", [tp.float16, tp.bfloat16], ids=str)
def test_half_floats_keep_their_dtype(dtype):
    xs, ws, attrs = GEOMETRIES[1].values
    x, w = sample(xs, dtype, -1, 1, seed=1), sample(ws, dtype, -1, 1, seed=2)
    dy = sample(_lax(x, w, attrs)[0].shape, dtype, -1, 1, seed=3)
    y, dx, dw, _ = _lax(x, w, attrs, dy)
    _close(run("Conv2D", {"x": x, "filter": w}, attrs), y, dtype)
    _close(run("Conv2DBackpropInput", {"dy": dy, "filter": w}, {**attrs, "input_shape": xs}), dx, dtype)
    _close(run("Conv2DBackpropFilter", {"x": x, "dy": dy}, {**attrs, "filter_shape": ws}), dw, dtype)


@pytest.mark.parametrize("rank", [2, 3])
def test_an_empty_batch(rank):
    conv, backprop_input, backprop_filter = CONV[rank]
    xs, ws = (0, *(3,) * rank, 2), (*(2,) * rank, 2, 4)
    ys = (0, *(2,) * rank, 4)
    assert run(conv, {"x": np.zeros(xs, np.float32), "filter": np.ones(ws, np.float32)}).shape == ys
    assert run(backprop_input, {"dy": np.zeros(ys, np.float32), "filter": np.ones(ws, np.float32)},
               {"input_shape": xs}).shape == xs
    dw = run(backprop_filter, {"x": np.zeros(xs, np.float32), "dy": np.zeros(ys, np.float32)},
             {"filter_shape": ws})
    assert dw.shape == ws and not dw.any()


def test_strides_skip_the_last_rows():
    # 5 rows, filter 2, stride 2: the last row is read by no window; its gradient is 0
    x, w = np.ones((1, 5, 1, 1)), np.ones((2, 1, 1, 1))
    assert run("Conv2D", {"x": x, "filter": w}, {"strides": (2, 1)}).ravel().tolist() == [2.0, 2.0]
    dx = run("Conv2DBackpropInput", {"dy": np.ones((1, 2, 1, 1)), "filter": w},
             {"input_shape": (1, 5, 1, 1), "strides": (2, 1)})
    assert dx.ravel().tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]


def test_errors():
    x, w = np.zeros((1, 4, 4, 4), np.float32), np.zeros((2, 2, 2, 3), np.float32)
    raises_for("Conv2D", tp.ShapeError, {"x": x, "filter": w}, None, "4 channels", "2 per group",
               "in_channels / groups = 4")
    raises_for("Conv2D", tp.ShapeError, {"x": x, "filter": w}, {"groups": 2}, "3 output channels",
               "multiple of groups")
    raises_for("Conv2D", tp.ShapeError, {"x": x, "filter": np.zeros((5, 1, 4, 3), np.float32)}, None,
               "spatial dim 0", "the filter reaches 5", "pad more")
    raises_for("Conv2D", tp.ShapeError, {"x": x[0], "filter": w}, None, "a 2-d convolution takes", "4 dims")
    for attrs, fragment in [({"data_format": "NDHWC"}, "data_format must be 'NHWC' or 'NCHW'"),
                            ({"padding": ((1, -1), (0, 0))}, "(low, high) pairs of ints in 0..2**63 - 1"),
                            ({"strides": (1, 0)}, "strides needs 2 ints >= 1")]:
        with pytest.raises(tp.ShapeError, match=message("kernel 'Conv2D'", fragment)):
            tp.run_kernel("Conv2D", {"x": x, "filter": w}, attrs)
    raises_for("Conv3D", tp.DTypeError, {"x": np.zeros((1, 2, 2, 2, 1), np.int32),
                                         "filter": np.zeros((1, 1, 1, 1, 1), np.int32)}, None, "got int32")
    raises_for("Conv2DBackpropInput", tp.ShapeError,
               {"dy": np.zeros((1, 2, 3, 3), np.float32), "filter": np.zeros((2, 2, 4, 3), np.float32)},
               {"input_shape": (1, 4, 4, 4)}, "dy has shape (1, 2, 3, 3)", "gives (1, 3, 3, 3)")
    raises_for("Conv2DBackpropFilter", tp.ShapeError, {"x": x, "dy": np.zeros((1, 2, 3, 3), np.float32)},
               {"filter_shape": (2, 2, 4, 3)}, "dy has shape (1, 2, 3, 3)", "gives (1, 3, 3, 3)")
    with pytest.raises(tp.ShapeError, match="needs the attribute 'filter_shape'"):
        tp.run_kernel("Conv2DBackpropFilter", {"x": x, "dy": np.zeros((1, 3, 3, 3), np.float32)})


def test_no_channels_per_group():
    # 3 groups of 0 input channels each: every output is 0, and so is the filter's gradient
    x, w = np.zeros((1, 1, 4, 0), np.float32), np.zeros((1, 2, 0, 3), np.float32)
    y = run("Conv2D", {"x": x, "filter": w}, {"groups": 3})
    assert y.shape == (1, 1, 3, 3) and not y.any()
    dw = run("Conv2DBackpropFilter", {"x": x, "dy": np.ones((1, 1, 3, 3), np.float32)},
             {"filter_shape": (1, 2, 0, 3), "groups": 3})
    assert dw.shape == (1, 2, 0, 3)
