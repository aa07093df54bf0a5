"""Pooling kernels (MaxPool, AvgPool, 2-D and 3-D, their Grad kernels, MaxPoolWithArgmax,
Dilation2D and its backprops) on each backend, against jax.lax.reduce_window and jax.vjp of
plain jax formulas (in 64 bits), and the spec's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: autouse)
from _kernel_helpers import assert_values, raises_for, run, sample


def _full(ndim, fmt, spatial, fill):
    first = 1 if fmt == "channels_last" else 2
    out = [fill] * ndim
    out[first:first + len(spatial)] = list(spatial)
    return tuple(out)


def _lax(kind, x, attrs):
    """jax's pooling of x: reduce_window max, or the window sum over the window count of ones."""
    fmt = attrs["data_format"]
    w, s = _full(x.ndim, fmt, attrs["filter_size"], 1), _full(x.ndim, fmt, attrs["strides"], 1)
    p = _full(x.ndim, fmt, attrs["pad"], (0, 0))
    if kind == "max":
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, w, s, p)
    total = jax.lax.reduce_window(x, 0.0, jax.lax.add, w, s, p)
    return total / jax.lax.reduce_window(jnp.ones_like(x), 0.0, jax.lax.add, w, s, p)


CL, CF = "channels_last", "channels_first"
CASES = [
    pytest.param((2, 6, 5, 3), dict(filter_size=(2, 2), strides=(2, 2), pad=((0, 0), (0, 0)), data_format=CL),
                 id="2d-valid"),
    pytest.param((1, 7, 6, 2), dict(filter_size=(3, 3), strides=(2, 1), pad=((1, 1), (1, 1)), data_format=CL),
                 id="2d-same"),
    pytest.param((2, 3, 5, 4), dict(filter_size=(3, 2), strides=(1, 3), pad=((2, 0), (0, 1)), data_format=CF),
                 id="2d-uneven-cf"),
    pytest.param((1, 4, 5, 3, 2), dict(filter_size=(2, 3, 2), strides=(2, 1, 1), pad=((0, 1), (1, 1), (0, 0)),
                                       data_format=CL), id="3d"),
    pytest.param((1, 2, 3, 4, 5), dict(filter_size=(1, 2, 3), strides=(1, 2, 2), pad=((0, 0), (1, 0), (1, 1)),
                                       data_format=CF), id="3d-cf"),
]


def _suffix(shape):
    return "3D" if len(shape) == 5 else ""


@pytest.mark.parametrize(("shape", "attrs"), CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_forward_matches_reduce_window(kind, shape, attrs):
    x = sample(shape, tp.float64)
    got = run(f"{kind.capitalize()}Pool{_suffix(shape)}", {"x": x}, attrs)
    assert_values(got, np.asarray(_lax(kind, x, attrs)), tp.float64)


@pytest.mark.parametrize(("shape", "attrs"), CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_grad_kernels_match_jax_vjp(kind, shape, attrs):
    x = sample(shape, tp.float64, seed=1)
    y, back = jax.vjp(jax.jit(lambda a: _lax(kind, a, attrs)), x)
    dy = sample(y.shape, tp.float64, seed=2)
    name = f"{kind.capitalize()}Pool{_suffix(shape)}Grad"
    inputs = {"dy": dy, "input": x, "output": np.asarray(y)} if kind == "max" else {"dy": dy, "input": x}
    assert_values(run(name, inputs, attrs), np.asarray(back(dy)[0]), tp.float64)


@pytest.mark.parametrize("dtype", [tp.float32, tp.float16, tp.bfloat16])
def test_narrow_floats_pool_in_their_dtype(dtype):
    attrs = CASES[1].values[1]
    x = sample((1, 7, 6, 2), dtype)
    for kind in ("max", "avg"):
        got = run(f"{kind.capitalize()}Pool", {"x": x}, attrs)
        assert_values(got, np.asarray(_lax(kind, x.astype(np.float64), attrs)), dtype)


def test_max_pool_grad_sends_ties_to_the_first_maximum():
    attrs = dict(filter_size=(2, 2), strides=(2, 2), pad=((0, 0), (0, 0)))
    x, dy = np.ones((1, 4, 4, 1)), np.arange(1.0, 5.0).reshape(1, 2, 2, 1)
    got = run("MaxPoolGrad", {"dy": dy, "input": x, "output": np.ones((1, 2, 2, 1))}, attrs)
    want = np.zeros((4, 4))
    want[::2, ::2] = [[1, 2], [3, 4]]
    np.testing.assert_array_equal(got[0, :, :, 0], want)



def test_max_pool_grad_ties_in_overlapping_windows_go_to_each_first_maximum():
    """Stride 1 with 'SAME'-like padding (the CNN demo's first pool): windows overlap, so an
    element can be the first maximum of several windows and receives the sum of their dy."""
    attrs = dict(filter_size=(2, 3), strides=(1, 1), pad=((0, 1), (1, 1)))
    x = np.random.default_rng(3).integers(0, 3, (2, 5, 6, 2)).astype(np.float64)  # many ties
    y = run("MaxPool", {"x": x}, attrs)
    dy = sample(y.shape, tp.float64, seed=4)
    padded = np.pad(x, ((0, 0), (0, 1), (1, 1), (0, 0)), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (2, 3), axis=(1, 2))  # (N, H, W, C, 2, 3)
    first = windows.reshape(*y.shape, 6).argmax(axis=-1)  # argmax: the first maximum, row-major
    want = np.zeros(padded.shape)
    n, h, w, c = np.indices(y.shape)
    np.add.at(want, (n, h + first // 3, w + first % 3, c), dy)
    got = run("MaxPoolGrad", {"dy": dy, "input": x, "output": y}, attrs)
    np.testing.assert_allclose(got, want[:, :5, 1:7], rtol=1e-12, atol=1e-12)  # (sums in another order)

@pytest.mark.parametrize(("dtype", "batch"), [(tp.float32, False), (tp.float64, True)])
def test_max_pool_with_argmax_indexes_the_maximum(dtype, batch):
    x = sample((2, 5, 6, 3), dtype)
    attrs = dict(filter_size=(3, 2), strides=(2, 2), pad=((1, 1), (0, 0)), include_batch_in_index=batch)
    values, indices = tp.run_kernel("MaxPoolWithArgmax", {"x": tp.asarray(x)}, attrs)
    want = _lax("max", x.astype(np.float64), {**attrs, "data_format": CL})
    assert_values(values.numpy(), np.asarray(want), dtype)
    assert indices.dtype is tp.int64
    flat = indices.numpy()
    per_image = x.reshape(2, -1)
    if batch:
        np.testing.assert_array_equal(x.reshape(-1)[flat], values.numpy())
        assert flat.max() >= per_image.shape[1]  # the second image's indices count the first
    else:
        picked = np.stack([per_image[b][flat[b]] for b in range(2)])
        np.testing.assert_array_equal(picked, values.numpy())


def _dilation(x, f, strides, pad, dilations):
    """TF's Dilation2D as a jax formula: the max over taps of the padded, strided input + filter."""
    (sh, sw), (dh, dw) = strides, dilations
    xp = jnp.pad(x, ((0, 0), *pad, (0, 0)), constant_values=-jnp.inf)
    kh, kw = f.shape[:2]
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    taps = [xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :] + f[i, j]
            for i in range(kh) for j in range(kw)]
    return jnp.max(jnp.stack(taps), axis=0)


DILATIONS = [
    pytest.param((2, 5, 6, 2), (2, 3, 2), dict(strides=(1, 1), pad=((0, 0), (0, 0)), dilations=(1, 1)),
                 id="valid"),
    pytest.param((1, 6, 7, 3), (3, 2, 3), dict(strides=(2, 1), pad=((2, 2), (1, 0)), dilations=(2, 2)),
                 id="strided-dilated-padded"),
]


@pytest.mark.parametrize(("xs", "fs", "attrs"), DILATIONS)
def test_dilation2d_and_its_backprops_match_jax(xs, fs, attrs):
    x, f = sample(xs, tp.float64, seed=3), sample(fs, tp.float64, seed=4)
    y, back = jax.vjp(jax.jit(lambda a, b: _dilation(a, b, **attrs)), x, f)
    assert_values(run("Dilation2D", {"x": x, "filter": f}, attrs), np.asarray(y), tp.float64)
    dy = sample(y.shape, tp.float64, seed=5)
    dx, df = back(dy)  # (no ties in random data: jax's max splits ties, the kernels pick the first)
    inputs = {"x": x, "filter": f, "dy": dy}
    assert_values(run("Dilation2DBackpropInput", inputs, attrs), np.asarray(dx), tp.float64)
    assert_values(run("Dilation2DBackpropFilter", inputs, attrs), np.asarray(df), tp.float64)


def test_pooling_errors():
    x = np.zeros((1, 4, 4, 1), np.float32)
    attrs = dict(filter_size=(2, 2), strides=(1, 1), pad=((0, 0), (0, 0)))
    raises_for("MaxPool", tp.DTypeError, {"x": x.astype(np.int32)}, attrs, "got int32")
    raises_for("AvgPool", tp.ShapeError, {"x": x}, {**attrs, "filter_size": (5, 5)}, "larger than the padded")
    raises_for("MaxPool", tp.ShapeError, {"x": x[0]}, attrs, "must be 4-d")
    raises_for("AvgPool3D", tp.ShapeError, {"x": x}, {**attrs, "filter_size": (2, 2, 2)}, "must be 5-d")
    raises_for("MaxPool", tp.ShapeError, {"x": x}, {**attrs, "pad": ((2, 0), (0, 0))},
               "smaller than the window")
    raises_for("MaxPoolGrad", tp.ShapeError, {"dy": x, "input": x, "output": x}, attrs, "dy has shape")
    with pytest.raises(tp.ShapeError, match="data_format must be 'channels_last' or 'channels_first'"):
        tp.run_kernel("MaxPool", {"x": tp.asarray(x)}, {**attrs, "data_format": "NHWC"})
    raises_for("Dilation2D", tp.ShapeError, {"x": x, "filter": np.zeros((2, 2, 3), np.float32)},
               dict(strides=(1, 1), pad=((0, 0), (0, 0)), dilations=(1, 1)), "the same C")


@pytest.mark.parametrize("name", ["MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad"])
def test_pooling_an_empty_batch(name):
    attrs = dict(filter_size=(2, 2), strides=(1, 1), pad=((0, 1), (0, 1)))
    x = np.zeros((0, 3, 3, 2), np.float32)
    inputs = {"x": x} if not name.endswith("Grad") else {"dy": x, "input": x, "output": x}
    if name == "AvgPoolGrad":
        del inputs["output"]
    assert run(name, inputs, attrs).shape == (0, 3, 3, 2)
