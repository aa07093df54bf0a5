"""JVP rules of the manipulation kernels (BroadcastTo, Concat, Pad, Reshape, Roll, Stack,
Transpose) against jax, real and complex, on both backends; each rule against its transposed
gradient; and forward over reverse (hvp)."""

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

CASES = [
    pytest.param(lambda x: tp.broadcast_to(x, (2, 3, 4)), lambda x: jnp.broadcast_to(x, (2, 3, 4)),
                 [(3, 1)], id="broadcast_to"),
    pytest.param(lambda x, y: tp.concat([x, y], axis=1), lambda x, y: jnp.concatenate([x, y], axis=1),
                 [(2, 3), (2, 1)], id="concat"),
    pytest.param(lambda x: tp.pad(x, ((1, 0), (2, 1))), lambda x: jnp.pad(x, ((1, 0), (2, 1))),
                 [(2, 3)], id="pad"),
    pytest.param(lambda x: tp.pad(x, ((0, 2), (1, 1)), constant_values=2.5),
                 lambda x: jnp.pad(x, ((0, 2), (1, 1)), constant_values=2.5), [(2, 3)], id="pad-nonzero"),
    pytest.param(lambda x: tp.reshape(x, (3, -1)), lambda x: jnp.reshape(x, (3, -1)), [(2, 3, 2)],
                 id="reshape"),
    pytest.param(lambda x: tp.roll(x, (1, -2), axis=(0, 1)), lambda x: jnp.roll(x, (1, -2), axis=(0, 1)),
                 [(3, 4)], id="roll"),
    pytest.param(lambda x, y: tp.stack([x, y], axis=1), lambda x, y: jnp.stack([x, y], axis=1),
                 [(2, 3), (2, 3)], id="stack"),
    pytest.param(lambda x: tp.permute_dims(x, (2, 0, 1)), lambda x: jnp.transpose(x, (2, 0, 1)),
                 [(2, 3, 4)], id="transpose"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["f64", "c128"])
@pytest.mark.parametrize(("f", "f_jax", "shapes"), CASES)
def test_jvp_matches_jax(f, f_jax, shapes, dtype):
    assert_jvp_matches_jax(f, f_jax, *[random(s, i, dtype) for i, s in enumerate(shapes)])


@pytest.mark.parametrize(("name", "shapes", "attrs"), [
    ("BroadcastTo", [(3, 1)], dict(shape=(2, 3, 4))),
    ("Concat", [(2, 3), (2, 1)], dict(axis=1)),
    ("Pad", [(2, 3)], dict(pad_width=((1, 0), (2, 1)), constant_value=3.0)),
    ("Reshape", [(2, 3)], dict(shape=(3, 2))),
    ("Roll", [(3, 4)], dict(shift=(1,), axis=(1,))),
    ("Stack", [(2, 3), (2, 3)], dict(axis=2)),
    ("Transpose", [(2, 3, 4)], dict(perm=(1, 2, 0))),
])
def test_rule_matches_transposed_gradient(name, shapes, attrs):
    assert_rule_matches_transposed(name, [random(s, i) for i, s in enumerate(shapes)], attrs)


def test_hvp():
    def f(x):
        y = tp.concat([tp.pad(x, ((1, 0), (0, 0)), constant_values=1.0), tp.roll(x, 1, axis=0)], axis=0)
        return tp.sum(tp.sin(tp.permute_dims(tp.reshape(y, (3, -1)), (1, 0))))

    def f_jax(x):
        y = jnp.concatenate([jnp.pad(x, ((1, 0), (0, 0)), constant_values=1.0), jnp.roll(x, 1, axis=0)],
                            axis=0)
        return jnp.sum(jnp.sin(jnp.transpose(jnp.reshape(y, (3, -1)), (1, 0))))

    assert_hvp_matches_jax(f, f_jax, random((2, 3)))
