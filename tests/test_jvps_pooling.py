"""JVP rules of the pooling kernels against jax.lax.reduce_window (and, for the backward
kernels, its jax.vjp), on both backends: MaxPool and AvgPool in 2-D and 3-D, MaxPoolWithArgmax,
Dilation2D (a windowed max of x + filter, written in jax.numpy) with tangents on both inputs,
and the backward kernels (AvgPoolGrad, MaxPoolGrad and their 3-D kernels, the Dilation2D
backprops) with tangents on every input; each rule against its transposed gradient; and
forward over reverse (hvp). Values are distinct, so that no window has a tie."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (jax_in_64_bits: autouse)
from _jvp_checks import (
    assert_hvp_matches_jax,
    assert_jvp_matches_jax,
    assert_rule_matches_transposed,
    backend,  # noqa: F401  (autouse: on both backends)
)


def distinct(shape, seed=0):
    """Values at least 0.1 apart (a permuted grid): no ties in any window."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.1 - 0.05 * n).reshape(shape)


def window_of(x, attrs, values):
    """(window, strides, padding) of lax.reduce_window for pooling attributes."""
    first = attrs["data_format"] == "channels_first"
    spatial = lambda v, fill: ((fill, fill) + tuple(v)) if first else ((fill,) + tuple(v) + (fill,))  # noqa: E731
    return spatial(attrs["filter_size"], 1), spatial(attrs["strides"], 1), spatial(attrs["pad"], (0, 0))


def lax_pool(kind, attrs):
    def pool(x):
        window, strides, pad = window_of(x, attrs, None)
        if kind == "max":
            return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, window, strides, pad)
        total = jax.lax.reduce_window(x, 0.0, jax.lax.add, window, strides, pad)
        return total / jax.lax.reduce_window(jnp.ones_like(x), 0.0, jax.lax.add, window, strides, pad)
    return jax.jit(pool)


def lax_dilation(attrs, kh, kw):
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]

    def dilation(x, f):
        x = jnp.pad(x, ((0, 0), *attrs["pad"], (0, 0)), constant_values=-jnp.inf)
        oh = (x.shape[1] - (kh - 1) * dh - 1) // sh + 1
        ow = (x.shape[2] - (kw - 1) * dw - 1) // sw + 1
        taps = [x[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw] + f[i, j]
                for i in range(kh) for j in range(kw)]
        return jnp.max(jnp.stack(taps), axis=0)
    return jax.jit(dilation)


POOLS = [
    pytest.param((2, 4, 5, 2), dict(filter_size=(2, 2), strides=(1, 2), pad=((0, 1), (1, 1)),
                                    data_format="channels_last"), id="2d"),
    pytest.param((1, 2, 3, 4), dict(filter_size=(2, 3), strides=(1, 1), pad=((1, 0), (1, 1)),
                                    data_format="channels_first"), id="2d-cf"),
    pytest.param((1, 3, 2, 3, 1), dict(filter_size=(2, 2, 2), strides=(1, 1, 2), pad=((0, 1), (0, 0), (1, 0)),
                                       data_format="channels_last"), id="3d"),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(("shape", "attrs"), POOLS)
def test_pool_jvp_matches_jax(kind, shape, attrs):
    pool = getattr(tp.nn, f"{kind}_pool")
    assert_jvp_matches_jax(
        lambda x: pool(x, attrs["filter_size"], attrs["strides"], attrs["pad"], attrs["data_format"]),
        lax_pool(kind, attrs), distinct(shape))


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(("shape", "attrs"), POOLS)
def test_pool_grad_kernels_jvp_match_jax(kind, shape, attrs):
    name = f"{kind.capitalize()}Pool{'3D' if len(shape) == 5 else ''}Grad"
    forward = lax_pool(kind, attrs)
    x = distinct(shape)
    dy = distinct(forward(jnp.asarray(x)).shape, seed=1)

    def f(dy, x):  # tangents on every input (the max's input and output choose places: none)
        inputs = [dy, x, tp.run_kernel(name.replace("Grad", ""), [x], attrs)] if kind == "max" else [dy, x]
        return tp.run_kernel(name, inputs, attrs)

    assert_jvp_matches_jax(f, lambda dy, x: jax.vjp(forward, x)[1](dy)[0], dy, x)


@pytest.mark.parametrize("include_batch", [False, True])
def test_max_pool_with_argmax_jvp_matches_jax(include_batch):
    attrs = dict(filter_size=(2, 2), strides=(2, 1), pad=((0, 1), (0, 0)), data_format="channels_last")
    assert_jvp_matches_jax(
        lambda x: tp.nn.max_pool_with_argmax(x, (2, 2), (2, 1), ((0, 1), (0, 0)), include_batch)[0],
        lax_pool("max", attrs), distinct((2, 3, 3, 2)))


DILATIONS = [
    pytest.param((1, 4, 5, 2), (2, 2, 2), dict(strides=(1, 1), pad=((0, 0), (0, 0)), dilations=(1, 1)),
                 id="valid"),
    pytest.param((2, 5, 4, 1), (2, 3, 1), dict(strides=(2, 1), pad=((1, 0), (1, 1)), dilations=(1, 2)),
                 id="padded"),
]


@pytest.mark.parametrize(("x_shape", "f_shape", "attrs"), DILATIONS)
def test_dilation2d_jvps_match_jax(x_shape, f_shape, attrs):
    ref = lax_dilation(attrs, *f_shape[:2])
    x, f = distinct(x_shape), distinct(f_shape, seed=1) * 0.01  # (x + f stays distinct)
    assert_jvp_matches_jax(lambda x, f: tp.run_kernel("Dilation2D", [x, f], attrs), ref, x, f)
    dy = distinct(ref(jnp.asarray(x), jnp.asarray(f)).shape, seed=2)
    assert_jvp_matches_jax(lambda x, f, dy: tp.run_kernel("Dilation2DBackpropInput", [x, f, dy], attrs),
                           lambda x, f, dy: jax.vjp(lambda x: ref(x, f), x)[1](dy)[0], x, f, dy)
    assert_jvp_matches_jax(lambda x, f, dy: tp.run_kernel("Dilation2DBackpropFilter", [x, f, dy], attrs),
                           lambda x, f, dy: jax.vjp(lambda f: ref(x, f), f)[1](dy)[0], x, f, dy)


@pytest.mark.parametrize("backend", ["numpy"], indirect=True)  # (the jax backend compiles each step)
def test_rules_match_transposed_gradient():
    for shape, attrs in [(p.values[0], p.values[1]) for p in POOLS[::2]]:
        three = "3D" if len(shape) == 5 else ""
        x = distinct(shape)
        y = tp.run_kernel(f"MaxPool{three}", [x], attrs)
        dy = distinct(y.shape, seed=1)
        assert_rule_matches_transposed(f"MaxPool{three}", [x], attrs)
        assert_rule_matches_transposed(f"AvgPool{three}", [x], attrs)
        assert_rule_matches_transposed(f"MaxPool{three}Grad", [dy, x, y.numpy()], attrs)
        assert_rule_matches_transposed(f"AvgPool{three}Grad", [dy, x], attrs)
    window = dict(filter_size=(2, 2), strides=(1, 1), pad=((0, 1), (0, 0)))
    assert_rule_matches_transposed("MaxPoolWithArgmax", [distinct((1, 3, 3, 2))],
                                   dict(window, include_batch_in_index=True))
    x_shape, f_shape, attrs = DILATIONS[1].values
    x, f = distinct(x_shape), distinct(f_shape, seed=1) * 0.01
    dy = tp.run_kernel("Dilation2D", [x, f], attrs)
    assert_rule_matches_transposed("Dilation2D", [x, f], attrs)
    assert_rule_matches_transposed("Dilation2DBackpropInput", [x, f, distinct(dy.shape, seed=2)], attrs)
    assert_rule_matches_transposed("Dilation2DBackpropFilter", [x, f, distinct(dy.shape, seed=2)], attrs)


def test_hvp():
    attrs = POOLS[0].values[1]
    x, f = distinct((1, 4, 5, 2)), distinct((2, 2, 2), seed=1) * 0.01
    dil = DILATIONS[0].values[2]

    def g(x):
        pad = attrs["pad"]
        y = tp.nn.max_pool(x, (2, 2), (1, 2), pad) + tp.nn.avg_pool(tp.sin(x), (2, 2), (1, 2), pad)
        return tp.sum(y ** 2) + tp.sum(tp.run_kernel("Dilation2D", [x, f], dil) ** 2)

    def g_jax(x):
        y = lax_pool("max", attrs)(x) + lax_pool("avg", attrs)(jnp.sin(x))
        return jnp.sum(y ** 2) + jnp.sum(lax_dilation(dil, 2, 2)(x, f) ** 2)

    assert_hvp_matches_jax(g, g_jax, x)
