"""JVP rules of the activation kernels (and SquaredDifference, Rsqrt, AddN): tp.jvp through the
public ops against jax.jvp in float64 on both backends, each rule against its gradient
transposed, and hvp (through the backward kernels EluGrad and GeluGrad) against jax's."""

from __future__ import annotations

import numpy as np
import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jax, jnp

pytestmark = checks.ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS

X = checks.RNG.standard_normal((3, 4)) * 3  # both signs, some beyond 6 for relu6
POSITIVE = checks.RNG.uniform(0.5, 2.0, (3, 4))
Y = checks.RNG.standard_normal((4,))
Z = checks.RNG.standard_normal((3, 4)) + 1j * checks.RNG.standard_normal((3, 4))
ELU = np.where(X > 0, X, 0.7 * np.expm1(X))  # elu(X, 0.7)


def _gelu_derivative(x, approximate):
    return jax.jvp(lambda v: jax.nn.gelu(v, approximate=approximate), (x,), (jnp.ones_like(x),))[1]


CASES = [  # (id, tensorplug function, jax function, primals)
    ("elu", lambda x: tp.nn.elu(x, alpha=0.7), lambda x: jax.nn.elu(x, alpha=0.7), (X,)),
    ("selu", tp.nn.selu, jax.nn.selu, (X,)),
    ("leaky_relu", lambda x: tp.nn.leaky_relu(x, 0.3), lambda x: jax.nn.leaky_relu(x, 0.3), (X,)),
    ("prelu", tp.nn.prelu, lambda x, a: jnp.where(x > 0, x, a * x), (X, Y)),
    ("relu6", tp.nn.relu6, jax.nn.relu6, (X,)),
    ("step", lambda x: tp.nn.step(x, alpha=0.2) * x, lambda x: jnp.where(x > 0, 1.0, 0.2) * x, (X,)),
    ("softplus", tp.nn.softplus, jax.nn.softplus, (X,)),
    ("log_sigmoid", tp.nn.log_sigmoid, jax.nn.log_sigmoid, (X,)),
    ("gelu-tanh", tp.nn.gelu, lambda x: jax.nn.gelu(x, approximate=True), (X,)),
    (
        "gelu-exact",
        lambda x: tp.nn.gelu(x, approximate=False),
        lambda x: jax.nn.gelu(x, approximate=False),
        (X,),
    ),
    ("squared_difference", tp.squared_difference, lambda x, y: (x - y) ** 2, (X, Y)),
    (
        "squared_difference-complex",
        tp.squared_difference,
        lambda x, y: (x - y) * jnp.conj(x - y),
        (Z, Z[0] * 0.5),
    ),
    ("rsqrt", tp.rsqrt, jax.lax.rsqrt, (POSITIVE,)),
    ("rsqrt-complex", tp.rsqrt, jax.lax.rsqrt, (Z,)),
    ("add_n", lambda a, b, c: tp.add_n([a, b, c]), lambda a, b, c: a + b + c, (X, POSITIVE, X * 2)),
    (
        "elu_grad",
        lambda dy, y: tp.run_kernel("EluGrad", (dy, y), {"alpha": 0.7}),
        lambda dy, y: dy * jnp.where(y > 0, 1.0, y + 0.7),
        (POSITIVE, ELU),
    ),
    (
        "relu_grad",
        lambda dy, x: tp.run_kernel("ReluGrad", (dy, x)),
        lambda dy, x: jnp.where(x > 0, dy, 0.0),
        (POSITIVE, X),
    ),
    (
        "gelu_grad",
        lambda dy, x: tp.run_kernel("GeluGrad", (dy, x), {"approximate": False}),
        lambda dy, x: dy * _gelu_derivative(x, False),
        (POSITIVE, X),
    ),
]


@pytest.mark.parametrize(("ours", "theirs", "primals"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_jvp_matches_jax(ours, theirs, primals):
    checks.assert_jvp_matches_jax(ours, theirs, *primals)


RULES = [  # (kernel, inputs, attrs)
    ("Elu", (X,), {"alpha": 0.5}),
    ("EluGrad", (POSITIVE, ELU), {"alpha": 0.7}),
    ("Selu", (X,), {}),
    ("LeakyRelu", (X,), {"alpha": -0.5}),
    ("Prelu", (X, Y), {}),
    ("Relu6", (X,), {}),
    ("Step", (X,), {}),
    ("Softplus", (X,), {}),
    ("LogSigmoid", (X,), {}),
    ("Gelu", (X,), {"approximate": True}),
    ("ReluGrad", (POSITIVE, X), {}),
    ("GeluGrad", (POSITIVE, X), {"approximate": True}),
    ("SquaredDifference", (Z, Z[1]), {}),
    ("Rsqrt", (POSITIVE,), {}),
    ("AddN", (X, POSITIVE), {}),
]


@pytest.mark.parametrize(("name", "inputs", "attrs"), RULES, ids=[r[0] for r in RULES])
def test_rule_matches_transposed_gradient(name, inputs, attrs):
    checks.assert_rule_matches_transposed(name, inputs, attrs)


@pytest.mark.parametrize("approximate", [True, False])
def test_hvp_through_the_backward_kernels(approximate):
    w = checks.RNG.standard_normal((3, 4))
    checks.assert_hvp_matches_jax(
        lambda x: tp.sum(tp.nn.elu(x, alpha=0.7) * w + tp.nn.gelu(x, approximate) * x),
        lambda x: jnp.sum(jax.nn.elu(x, alpha=0.7) * w + jax.nn.gelu(x, approximate) * x),
        X,
    )
