"""JVP rules of the indexing kernels (Gather, ScatterAdd, StridedSlice, StridedSliceGrad)
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

IDX = np.array([2, 0, 2, 1])
SLICES = ((1, 3, 1), (4, 0, -2))  # x[1:3, 4:0:-2] of a (3, 5)


def scatter_add(u, shape, axis):
    return jnp.zeros(shape, u.dtype).at[(slice(None),) * axis + (IDX,)].add(u)


CASES = [
    pytest.param(lambda x: tp.take(x, IDX, axis=1), lambda x: jnp.take(x, IDX, axis=1), (2, 3), id="gather"),
    pytest.param(lambda x: x[1:, ::-2], lambda x: x[1:, ::-2], (3, 5), id="strided_slice"),
    pytest.param(lambda u: tp.run_kernel("ScatterAdd", [IDX, u], dict(shape=(2, 3), axis=1)),
                 lambda u: scatter_add(u, (2, 3), 1), (2, 4), id="scatter_add"),
    pytest.param(lambda dy: tp.run_kernel("StridedSliceGrad", [dy], dict(shape=(3, 5), slices=SLICES)),
                 lambda dy: jnp.zeros((3, 5), dy.dtype).at[1:3, 4:0:-2].add(dy), (2, 2),
                 id="strided_slice_grad"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["f64", "c128"])
@pytest.mark.parametrize(("f", "f_jax", "shape"), CASES)
def test_jvp_matches_jax(f, f_jax, shape, dtype):
    assert_jvp_matches_jax(f, f_jax, random(shape, dtype=dtype))


@pytest.mark.parametrize(("name", "inputs", "attrs"), [
    ("Gather", [random((3, 2)), IDX], dict(axis=0)),
    ("ScatterAdd", [IDX, random((4, 2))], dict(shape=(3, 2), axis=0)),
    ("StridedSlice", [random((3, 5))], dict(slices=SLICES)),
    ("StridedSliceGrad", [random((2, 2))], dict(shape=(3, 5), slices=SLICES)),
])
def test_rule_matches_transposed_gradient(name, inputs, attrs):
    assert_rule_matches_transposed(name, inputs, attrs)


def test_hvp():
    assert_hvp_matches_jax(lambda x: tp.sum(tp.sin(tp.take(x, IDX, axis=0)[:, 1:]) ** 2),
                           lambda x: jnp.sum(jnp.sin(jnp.take(x, IDX, axis=0)[:, 1:]) ** 2), random((3, 3)))
