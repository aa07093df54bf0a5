"""JVP rules of the segment kernels (UnsortedSegmentSum, UnsortedSegmentMax/Min) against
jax.ops.segment_*, on both backends, ties included (jax averages the tied rows' tangents); each
rule against its transposed gradient; and forward over reverse (hvp)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits  # noqa: F401  (jax_in_64_bits: autouse)
from _jvp_checks import (
    assert_hvp_matches_jax,
    assert_jvp_matches_jax,
    assert_rule_matches_transposed,
    backend,  # noqa: F401  (autouse: on both backends)
    random,
)

IDS = np.array([0, 2, 0, 1, 2, 0])
OPS = [("segment_sum", "UnsortedSegmentSum"), ("segment_max", "UnsortedSegmentMax"),
       ("segment_min", "UnsortedSegmentMin")]


def tied(shape):
    """Values with ties inside segments (rows 0 and 2 of segment 0, rows 1 and 4 of segment 2)."""
    x = random(shape)
    x[2], x[4] = x[0], x[1]
    return x


@pytest.mark.parametrize("data", [random((6, 2)), tied((6, 2)), tied((6,))],
                         ids=["distinct", "ties", "ties-1d"])
@pytest.mark.parametrize(("op", "name"), OPS)
def test_jvp_matches_jax(op, name, data):
    assert_jvp_matches_jax(lambda x: getattr(tp, op)(x, IDS, 3), lambda x: getattr(jax.ops, op)(x, IDS, 3),
                           data)


@pytest.mark.parametrize(("op", "name"), OPS)
def test_rule_matches_transposed_gradient(op, name):
    assert_rule_matches_transposed(name, [tied((6, 2)), IDS], dict(num_segments=4))  # (an empty segment too)


def test_hvp():
    assert_hvp_matches_jax(
        lambda x: tp.sum(tp.segment_max(tp.sin(x), IDS, 3) ** 2 + tp.segment_sum(x, IDS, 3) ** 3),
        lambda x: (jax.ops.segment_max(jax.numpy.sin(x), IDS, 3) ** 2
                   + jax.ops.segment_sum(x, IDS, 3) ** 3).sum(), random((6, 2)))
