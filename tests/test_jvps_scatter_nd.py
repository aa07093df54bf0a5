"""JVP rules of the N-d gather/scatter kernels (GatherNd, ScatterNd, TensorScatterUpdate)
against jax, on both backends (complex too); each rule against its transposed gradient; and
forward over reverse (hvp)."""

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

IDX = np.array([[0, 2], [1, 0], [0, 2]])  # (3, 2): a repeat, which ScatterNd sums
DISTINCT = IDX[:2]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["f64", "c128"])
def test_jvp_matches_jax(dtype):
    assert_jvp_matches_jax(lambda p: tp.gather_nd(p, IDX), lambda p: p[tuple(IDX.T)],
                           random((2, 3, 2), dtype=dtype))
    assert_jvp_matches_jax(lambda u: tp.scatter_nd(IDX, u, (2, 3, 2)),
                           lambda u: jnp.zeros((2, 3, 2), u.dtype).at[tuple(IDX.T)].add(u),
                           random((3, 2), dtype=dtype))
    assert_jvp_matches_jax(lambda t, u: tp.tensor_scatter_update(t, DISTINCT, u),
                           lambda t, u: t.at[tuple(DISTINCT.T)].set(u),
                           random((2, 3), dtype=dtype), random((2,), 1, dtype=dtype))


@pytest.mark.parametrize(("name", "inputs"), [
    ("GatherNd", [random((2, 3)), IDX]),
    ("ScatterNd", [IDX, random((3,))]),
    ("TensorScatterUpdate", [random((2, 3)), DISTINCT, random((2,), 1)]),
])
def test_rule_matches_transposed_gradient(name, inputs):
    assert_rule_matches_transposed(name, inputs, dict(shape=(2, 3)) if name == "ScatterNd" else {})


def test_hvp():
    assert_hvp_matches_jax(
        lambda x: tp.sum(tp.sin(tp.tensor_scatter_update(x, DISTINCT, tp.gather_nd(x, IDX[1:]) ** 2)) ** 2),
        lambda x: jnp.sum(jnp.sin(x.at[tuple(DISTINCT.T)].set(x[tuple(IDX[1:].T)] ** 2)) ** 2),
        random((2, 3)))
