"""Forward mode through the cross-entropy losses, which record their own derivatives: tp.jvp
of softmax_cross_entropy (every reduction, tangents on labels and logits) and of
sparse_softmax_cross_entropy against jax.jvp in float64 on both backends, and hvp (forward
over their gradient) against jax's, which a tangent-less log_softmax would get wrong."""

from __future__ import annotations

import numpy as np
import pytest

import _jvp_checks as checks
import tensorplug as tp
from _jax_reference import jax, jnp

pytestmark = checks.ON_BOTH_BACKENDS

LOGITS = checks.RNG.standard_normal((3, 4))
_E = np.exp(checks.RNG.standard_normal((3, 4)) * 2)
PROBS = _E / _E.sum(axis=-1, keepdims=True)
CLASSES = np.array([2, 0, 3])
REDUCE = {"mean": jnp.mean, "sum": jnp.sum, "none": lambda v: v}


@pytest.mark.parametrize("reduction", list(REDUCE))
def test_softmax_cross_entropy_jvp_matches_jax(reduction):
    checks.assert_jvp_matches_jax(
        lambda lab, lg: tp.nn.softmax_cross_entropy(lab, lg, reduction=reduction),
        lambda lab, lg: REDUCE[reduction](-jnp.sum(lab * jax.nn.log_softmax(lg), axis=-1)),
        PROBS * 1.5,  # (labels not normalized: their sum enters the derivative)
        LOGITS,
    )


def test_softmax_cross_entropy_on_another_axis_jvp_matches_jax():
    checks.assert_jvp_matches_jax(
        lambda lab, lg: tp.nn.softmax_cross_entropy(lab, lg, axis=0),
        lambda lab, lg: jnp.mean(-jnp.sum(lab * jax.nn.log_softmax(lg, axis=0), axis=0)),
        PROBS,
        LOGITS,
    )


def _sparse(lg):
    return tp.nn.sparse_softmax_cross_entropy(CLASSES, lg)


def _sparse_jax(lg):
    return jnp.mean(-jax.nn.log_softmax(lg)[jnp.arange(3), CLASSES])


def test_sparse_softmax_cross_entropy_jvp_matches_jax():
    checks.assert_jvp_matches_jax(_sparse, _sparse_jax, LOGITS)


def test_sparse_softmax_cross_entropy_hvp_matches_jax():
    checks.assert_hvp_matches_jax(_sparse, _sparse_jax, LOGITS)


def test_softmax_cross_entropy_hvp_matches_jax():
    checks.assert_hvp_matches_jax(
        lambda lg: tp.nn.softmax_cross_entropy(PROBS * 1.5, lg, reduction="sum"),
        lambda lg: jnp.sum(-jnp.sum(PROBS * 1.5 * jax.nn.log_softmax(lg), axis=-1)),
        LOGITS,
    )


def test_mlp_loss_hvp_matches_jax():
    x, w2 = checks.RNG.standard_normal((3, 5)), checks.RNG.standard_normal((4, 4))
    checks.assert_hvp_matches_jax(
        lambda w: tp.nn.sparse_softmax_cross_entropy(CLASSES, tp.nn.relu(tp.matmul(x, w)) @ w2),
        lambda w: jnp.mean(-jax.nn.log_softmax(jax.nn.relu(x @ w) @ w2)[jnp.arange(3), CLASSES]),
        checks.RNG.standard_normal((5, 4)),
    )
