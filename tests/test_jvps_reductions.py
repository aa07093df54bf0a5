"""JVP rules of the reductions (Sum, Prod, Max, Min, EuclideanNorm, Cumsum, Cumprod), of
Softmax and LogSoftmax, MatMul and Einsum: tp.jvp through the public ops against jax.jvp in
float64 (complex where the kernel takes it) on both backends, with zeros and ties where the
rules must be exact; each rule against its gradient transposed; hvp against jax's."""

from __future__ import annotations

import numpy as np
import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jax, jnp

pytestmark = checks.ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS

X = checks.RNG.standard_normal((3, 4))
ZEROS = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 0.0, 3.0, 0.5], [1.0, 2.0, -0.5, 1.2]])  # one, two zeros
TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0], [0.5, -4.0, 1.0, -4.0]])
Z = checks.RNG.standard_normal((3, 4)) + 1j * checks.RNG.standard_normal((3, 4))
A, B = checks.RNG.standard_normal((2, 3, 4)), checks.RNG.standard_normal((4, 2))


def _cumulative(name, exclusive, reverse, axis):
    """The Cumsum / Cumprod kernel with its flags, and jax's equivalent along `axis`."""
    identity = 0.0 if name == "Cumsum" else 1.0
    accumulate = jnp.cumsum if name == "Cumsum" else jnp.cumprod

    def theirs(x):
        if reverse:
            x = jnp.flip(x, axis)
        out = accumulate(x, axis=axis)
        if exclusive:  # shift by one, the identity first
            pad = [(0, 0)] * x.ndim
            pad[axis] = (1, 0)
            out = jax.lax.slice_in_dim(
                jnp.pad(out, pad, constant_values=identity), 0, x.shape[axis], axis=axis
            )
        return jnp.flip(out, axis) if reverse else out

    def ours(x):
        return tp.run_kernel(name, (x,), {"axis": axis, "exclusive": exclusive, "reverse": reverse})

    return ours, theirs


CASES = [  # (id, tensorplug function, jax function, primals)
    ("sum", lambda x: tp.sum(x, axis=1), lambda x: jnp.sum(x, axis=1), (X,)),
    (
        "sum-complex-keepdims",
        lambda x: tp.sum(x, axis=0, keepdims=True),
        lambda x: jnp.sum(x, axis=0, keepdims=True),
        (Z,),
    ),
    ("prod", lambda x: tp.prod(x, axis=1), lambda x: jnp.prod(x, axis=1), (ZEROS,)),
    ("prod-all", tp.prod, jnp.prod, (X,)),
    (
        "prod-complex",
        lambda x: tp.prod(x, axis=0, keepdims=True),
        lambda x: jnp.prod(x, axis=0, keepdims=True),
        (Z,),
    ),
    ("max-ties", lambda x: tp.max(x, axis=1), lambda x: jnp.max(x, axis=1), (TIES,)),
    ("min-ties-all", tp.min, jnp.min, (TIES,)),
    (
        "min-keepdims",
        lambda x: tp.min(x, axis=0, keepdims=True),
        lambda x: jnp.min(x, axis=0, keepdims=True),
        (X,),
    ),
    ("norm", lambda x: tp.linalg.vector_norm(x, axis=1), lambda x: jnp.linalg.norm(x, axis=1), (X,)),
    ("norm-complex", tp.linalg.vector_norm, lambda x: jnp.linalg.norm(x.ravel()), (Z,)),
    ("cumsum", lambda x: tp.cumulative_sum(x, axis=1), lambda x: jnp.cumsum(x, axis=1), (X,)),
    ("cumsum-exclusive-reverse", *_cumulative("Cumsum", True, True, 0), (X,)),
    ("cumprod", lambda x: tp.cumulative_prod(x, axis=1), lambda x: jnp.cumprod(x, axis=1), (ZEROS,)),
    ("cumprod-exclusive", *_cumulative("Cumprod", True, False, 1), (ZEROS,)),
    ("cumprod-reverse", *_cumulative("Cumprod", False, True, 0), (ZEROS,)),
    ("cumprod-exclusive-reverse", *_cumulative("Cumprod", True, True, 1), (X,)),
    ("softmax", tp.nn.softmax, jax.nn.softmax, (X,)),
    ("softmax-axis0", lambda x: tp.nn.softmax(x, axis=0), lambda x: jax.nn.softmax(x, axis=0), (X,)),
    ("log_softmax", tp.nn.log_softmax, jax.nn.log_softmax, (X,)),
    (
        "log_softmax-axis0",
        lambda x: tp.nn.log_softmax(x, axis=0),
        lambda x: jax.nn.log_softmax(x, axis=0),
        (X,),
    ),
    ("matmul", tp.matmul, jnp.matmul, (A, B)),
    ("matmul-complex", tp.matmul, jnp.matmul, (Z, Z.T.copy())),
    (
        "matmul-transposed",
        lambda x, y: tp.run_kernel("MatMul", (x, y), {"transpose_x": True, "transpose_y": True}),
        lambda x, y: jnp.swapaxes(x, -1, -2) @ jnp.swapaxes(y, -1, -2),
        (A, X[:2, :3]),
    ),
    (
        "einsum",
        lambda x, y: tp.einsum("bij,jk->bik", x, y),
        lambda x, y: jnp.einsum("bij,jk->bik", x, y),
        (A, B),
    ),
    (
        "einsum-three",
        lambda x, y, z: tp.einsum("ij,jk,k->i", x, y, z),
        lambda x, y, z: jnp.einsum("ij,jk,k->i", x, y, z),
        (X, B, B[0]),
    ),
    ("einsum-trace", lambda x: tp.einsum("ii->", x), lambda x: jnp.einsum("ii->", x), (X[:, :3],)),
]


@pytest.mark.parametrize(("ours", "theirs", "primals"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_jvp_matches_jax(ours, theirs, primals):
    checks.assert_jvp_matches_jax(ours, theirs, *primals)


RULES = [  # (kernel, inputs, attrs)
    ("Sum", (X,), {"axis": (0,)}),
    ("Prod", (ZEROS,), {"axis": (1,)}),
    ("Max", (TIES,), {"axis": (1,), "keepdims": True}),
    ("Min", (TIES,), {"axis": None}),
    ("EuclideanNorm", (Z,), {"axis": (0,)}),
    ("Cumsum", (X,), {"axis": 1, "reverse": True}),
    ("Cumprod", (ZEROS,), {"axis": 1, "exclusive": True}),
    ("Softmax", (X,), {"axis": 0}),
    ("LogSoftmax", (X,), {}),
    ("MatMul", (A, B), {}),
    ("Einsum", (X, B), {"equation": "ij,jk->ik"}),
]


@pytest.mark.parametrize(("name", "inputs", "attrs"), RULES, ids=[r[0] for r in RULES])
def test_rule_matches_transposed_gradient(name, inputs, attrs):
    checks.assert_rule_matches_transposed(name, inputs, attrs)


def test_hvp_matches_jax():
    w = checks.RNG.standard_normal((3,))
    checks.assert_hvp_matches_jax(
        lambda x: (
            tp.sum(tp.nn.log_softmax(tp.matmul(x, B)) * tp.prod(x, axis=1, keepdims=True))
            + tp.sum(tp.cumulative_prod(x, axis=1) * X)
            + tp.sum(tp.linalg.vector_norm(x, axis=1) * w)
        ),
        lambda x: (
            jnp.sum(jax.nn.log_softmax(x @ B) * jnp.prod(x, axis=1, keepdims=True))
            + jnp.sum(jnp.cumprod(x, axis=1) * X)
            + jnp.sum(jnp.linalg.norm(x, axis=1) * w)
        ),
        ZEROS,
    )
