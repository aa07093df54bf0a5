"""JVP rules of the structure kernels (Diag, MatrixBandPart, Reverse, SplitV, Tile, TopK,
Unpack) against jax, on both backends (complex where the kernel takes it); each rule against
its transposed gradient; and forward over reverse (hvp)."""

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
    random,
)


def band(x, lower, upper):
    i, j = np.indices(x.shape[-2:])
    keep = (lower < 0 or i - j <= lower) & ((upper < 0) | (j - i <= upper))
    return jnp.where(keep, x, 0)


def tensor_diag(x):  # out[i..., j...] = x[i...] where i... == j...
    n = x.size
    return jnp.reshape(jnp.diag(jnp.reshape(x, (n,))), x.shape + x.shape)


CASES = [
    pytest.param(tp.linalg.tensor_diag, tensor_diag, (2, 2), id="diag"),
    pytest.param(lambda x: tp.linalg.band_part(x, 1, 0), lambda x: band(x, 1, 0), (2, 3, 4), id="band_part"),
    pytest.param(lambda x: tp.linalg.band_part(x, -1, 1), lambda x: band(x, -1, 1), (4, 3),
                 id="band_part-all"),
    pytest.param(lambda x: tp.flip(x, axis=(0, 2)), lambda x: jnp.flip(x, axis=(0, 2)), (2, 3, 2),
                 id="reverse"),
    pytest.param(lambda x: tp.split(x, [1, 3], axis=1), lambda x: jnp.split(x, [1, 3], axis=1), (2, 5),
                 id="split"),
    pytest.param(lambda x: tp.tile(x, (2, 1, 3)), lambda x: jnp.tile(x, (2, 1, 3)), (2, 1, 2), id="tile"),
    pytest.param(lambda x: tp.unstack(x, axis=1), lambda x: tuple(jnp.moveaxis(x, 1, 0)), (2, 3, 2),
                 id="unstack"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["f64", "c128"])
@pytest.mark.parametrize(("f", "f_jax", "shape"), CASES)
def test_jvp_matches_jax(f, f_jax, shape, dtype):
    assert_jvp_matches_jax(f, f_jax, random(shape, dtype=dtype))


@pytest.mark.parametrize("shape", [(5,), (2, 4)])
def test_top_k_jvp_matches_jax(shape):
    x = np.random.default_rng(0).permutation(np.prod(shape)).reshape(shape) * 0.5  # no ties
    assert_jvp_matches_jax(lambda x: tp.top_k(x, 3)[0], lambda x: jax.lax.top_k(x, 3)[0],
                           x.astype(np.float64))
    _, t_indices = tp.jvp(lambda x: tp.top_k(x, 2), (x,), (np.ones(shape),))[1]
    assert not np.any(t_indices.numpy())  # (the indices' tangent is zero)


@pytest.mark.parametrize(("name", "shape", "attrs"), [
    ("Diag", (3,), {}),
    ("MatrixBandPart", (3, 3), dict(num_lower=0, num_upper=1)),
    ("Reverse", (2, 3), dict(axes=(1,))),
    ("SplitV", (5, 2), dict(sizes=(2, 3), axis=0)),
    ("Tile", (2, 3), dict(reps=(2, 2))),
    ("TopK", (2, 5), dict(k=2)),
    ("Unpack", (3, 2), dict(axis=1)),
])
def test_rule_matches_transposed_gradient(name, shape, attrs):
    assert_rule_matches_transposed(name, [random(shape)], attrs)


def test_hvp():
    def f(x):
        a, b = tp.split(tp.tile(x, (1, 2)), 2, axis=0)
        top = tp.top_k(tp.sin(tp.linalg.band_part(a, 0, 1)), 2)[0]
        return tp.sum(top ** 2) + tp.sum(tp.flip(b, axis=1) * b)

    def f_jax(x):
        a, b = jnp.split(jnp.tile(x, (1, 2)), 2, axis=0)
        return jnp.sum(jax.lax.top_k(jnp.sin(band(a, 0, 1)), 2)[0] ** 2) + jnp.sum(jnp.flip(b, axis=1) * b)

    assert_hvp_matches_jax(f, f_jax, random((4, 3)))
