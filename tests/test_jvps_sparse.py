"""JVP rules of the sparse kernels (SparseSegmentSum, SparseSegmentMean, SparseToDense)
against their definitions in jax, on both backends; each rule against its transposed gradient;
and forward over reverse (hvp)."""

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

INDICES = np.array([0, 2, 2, 3])
IDS = np.array([0, 0, 1, 3])  # segment 2 empty
DENSE_AT = np.array([[0, 1], [2, 0]])


def segment_mean(x):
    total = jax.ops.segment_sum(x[INDICES], IDS, 4)
    count = jax.ops.segment_sum(jnp.ones(len(IDS)), IDS, 4)
    return total / jnp.maximum(count, 1).reshape((4,) + (1,) * (x.ndim - 1))


@pytest.mark.parametrize("shape", [(4,), (4, 2)])
def test_jvp_matches_jax(shape):
    assert_jvp_matches_jax(lambda x: tp.sparse.segment_sum(x, INDICES, IDS, 4),
                           lambda x: jax.ops.segment_sum(x[INDICES], IDS, 4), random(shape))
    assert_jvp_matches_jax(lambda x: tp.sparse.segment_mean(x, INDICES, IDS, 4), segment_mean, random(shape))


def test_to_dense_jvp_matches_jax():
    assert_jvp_matches_jax(lambda v, d: tp.sparse.to_dense(DENSE_AT, v, (3, 2), d),
                           lambda v, d: jnp.full((3, 2), d).at[tuple(DENSE_AT.T)].set(v),
                           random((2,)), np.float64(1.5))


@pytest.mark.parametrize(("name", "inputs", "attrs"), [
    ("SparseSegmentSum", [random((4, 2)), INDICES, IDS], dict(num_segments=4)),
    ("SparseSegmentMean", [random((4, 2)), INDICES, IDS], dict(num_segments=4)),
    ("SparseToDense", [DENSE_AT, random((2,)), np.float64(0.5)], dict(output_shape=(3, 2))),
])
def test_rule_matches_transposed_gradient(name, inputs, attrs):
    assert_rule_matches_transposed(name, inputs, attrs)


def test_hvp():
    assert_hvp_matches_jax(lambda x: tp.sum(tp.sin(tp.sparse.segment_mean(x, INDICES, IDS, 4)) ** 2),
                           lambda x: jnp.sum(jnp.sin(segment_mean(x)) ** 2), random((4, 2)))
