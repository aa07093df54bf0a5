"""JVP rule of Sort against jax, on both backends, along either axis and in either order; the
rule against its transposed gradient; and forward over reverse (hvp)."""

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


@pytest.mark.parametrize(("axis", "descending"), [(-1, False), (0, True)])
def test_jvp_matches_jax(axis, descending):
    def f_jax(x):
        y = jnp.sort(x, axis=axis)
        return jnp.flip(y, axis=axis) if descending else y

    assert_jvp_matches_jax(lambda x: tp.sort(x, axis=axis, descending=descending), f_jax, random((3, 4)))


def test_rule_matches_transposed_gradient():
    assert_rule_matches_transposed("Sort", [random((3, 4))], dict(axis=0, descending=True, stable=True))


def test_hvp():
    assert_hvp_matches_jax(lambda x: tp.sum(tp.sort(x, axis=0) * np.arange(3.0).reshape(3, 1) * tp.sin(x)),
                           lambda x: jnp.sum(jnp.sort(x, axis=0) * np.arange(3.0).reshape(3, 1) * jnp.sin(x)),
                           random((3, 2)))
