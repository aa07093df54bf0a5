"""JVP rules of the layout kernels (BatchToSpaceND, DepthToSpace, MirrorPad, SpaceToBatchND,
SpaceToDepth) against jax (their definitions in jax.numpy), on both backends; each rule
against its transposed gradient; and forward over reverse (hvp)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax_in_64_bits, jnp  # noqa: F401  (jax_in_64_bits: autouse)
from _jvp_checks import (
    assert_hvp_matches_jax,
    assert_jvp_matches_jax,
    assert_rule_matches_transposed,
    backend,  # noqa: F401  (autouse: on both backends)
    random,
)


def depth_to_space(x, b):  # NHWC, channels read as (block_row, block_col, channel)
    n, h, w, c = x.shape
    return x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, -1)


def space_to_depth(x, b):
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, -1)


def space_to_batch(x, block, paddings):  # (N, H, W, C), block offsets major in the batch
    x = jnp.pad(x, ((0, 0), *paddings, (0, 0)))
    n, h, w, c = x.shape
    (b0, b1) = block
    x = x.reshape(n, h // b0, b0, w // b1, b1, c).transpose(2, 4, 0, 1, 3, 5)
    return x.reshape(b0 * b1 * n, h // b0, w // b1, c)


def batch_to_space(x, block, crops):
    (b0, b1), (nb, h, w, c) = block, x.shape
    x = x.reshape(b0, b1, nb // (b0 * b1), h, w, c).transpose(2, 3, 0, 4, 1, 5)
    x = x.reshape(nb // (b0 * b1), h * b0, w * b1, c)
    (t, bo), (le, r) = crops
    return x[:, t:h * b0 - bo, le:w * b1 - r]


def nchw(f):
    return lambda x: jnp.transpose(f(jnp.transpose(x, (0, 2, 3, 1))), (0, 3, 1, 2))


CASES = [
    pytest.param(lambda x: tp.nn.depth_to_space(x, 2), lambda x: depth_to_space(x, 2), (1, 2, 3, 8),
                 id="depth_to_space"),
    pytest.param(lambda x: tp.nn.depth_to_space(x, 2, "NCHW"), nchw(lambda x: depth_to_space(x, 2)),
                 (2, 4, 2, 3), id="depth_to_space-nchw"),
    pytest.param(lambda x: tp.nn.space_to_depth(x, 2), lambda x: space_to_depth(x, 2), (1, 4, 6, 2),
                 id="space_to_depth"),
    pytest.param(lambda x: tp.nn.space_to_batch_nd(x, (2, 3), ((1, 1), (0, 2))),
                 lambda x: space_to_batch(x, (2, 3), ((1, 1), (0, 2))), (2, 4, 4, 1), id="space_to_batch"),
    pytest.param(lambda x: tp.nn.batch_to_space_nd(x, (2, 2), ((1, 0), (0, 1))),
                 lambda x: batch_to_space(x, (2, 2), ((1, 0), (0, 1))), (8, 2, 3, 1), id="batch_to_space"),
    pytest.param(lambda x: tp.pad(x, ((1, 2), (2, 0)), mode="reflect"),
                 lambda x: jnp.pad(x, ((1, 2), (2, 0)), mode="reflect"), (3, 4), id="mirror_pad-reflect"),
    pytest.param(lambda x: tp.pad(x, ((2, 1), (0, 3)), mode="symmetric"),
                 lambda x: jnp.pad(x, ((2, 1), (0, 3)), mode="symmetric"), (3, 4), id="mirror_pad-symmetric"),
]


@pytest.mark.parametrize(("f", "f_jax", "shape"), CASES)
def test_jvp_matches_jax(f, f_jax, shape):
    assert_jvp_matches_jax(f, f_jax, random(shape))


def test_jvp_complex():
    assert_jvp_matches_jax(lambda x: tp.nn.space_to_depth(x, 2), lambda x: space_to_depth(x, 2),
                           random((1, 2, 2, 3), dtype=np.complex128))


@pytest.mark.parametrize(("name", "shape", "attrs"), [
    ("BatchToSpaceND", (4, 2, 2, 1), dict(block_shape=(2, 2), crops=((0, 1), (1, 0)))),
    ("DepthToSpace", (1, 2, 2, 4), dict(block_size=2)),
    ("MirrorPad", (3, 3), dict(paddings=((1, 1), (2, 0)), mode="reflect")),
    ("SpaceToBatchND", (1, 4, 2, 2), dict(block_shape=(2, 1), paddings=((0, 0), (1, 1)))),
    ("SpaceToDepth", (1, 4, 4, 1), dict(block_size=2, data_format="NHWC")),
])
def test_rule_matches_transposed_gradient(name, shape, attrs):
    assert_rule_matches_transposed(name, [random(shape)], attrs)


def test_hvp():
    assert_hvp_matches_jax(
        lambda x: tp.sum(tp.sin(tp.nn.depth_to_space(tp.pad(x, ((0, 0), (1, 1), (0, 0), (0, 0)),
                                                            mode="symmetric"), 2)) ** 2),
        lambda x: jnp.sum(jnp.sin(depth_to_space(jnp.pad(x, ((0, 0), (1, 1), (0, 0), (0, 0)),
                                                       mode="symmetric"), 2)) ** 2),
        random((1, 1, 2, 4)))
