"""jax as the reference of tests that compare with it (jax.lax.reduce_window, jax.vjp of jax
formulas): the module skips where jax is absent, and ``jax_in_64_bits`` (autouse where
imported) computes the references in 64 bits for that module's tests only (a global switch
would leak into other tests of the same process)."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

__all__ = ["jax", "jax_in_64_bits", "jnp"]


@pytest.fixture(autouse=True)
def jax_in_64_bits():
    with jax.enable_x64(True):
        yield
