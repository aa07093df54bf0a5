"""Gradients through sort (Sort's gradient: dy sent back through the permutation), diff, tril
and triu (composed of slicing, concat, subtract and where) against finite differences, to
second order (third where the composition is smooth), on each first-party backend."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides


def distinct(shape, key="x"):
    """Deterministic float64 samples, pairwise at least 0.1 apart (no ties: sort is smooth)."""
    rng = np.random.default_rng(zlib.crc32(f"{key}{shape}".encode()))
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.3 - 0.15 * n + rng.uniform(-0.1, 0.1, n)).reshape(shape) / 2


SORTS = [
    pytest.param(lambda x, a=a, d=d: tp.sort(x, axis=a, descending=d) ** 3,
                 id=f"sort-axis={a}-descending={d}")
    for a in (0, 1, -1) for d in (False, True)
]


@pytest.mark.parametrize("fn", SORTS)
def test_sort_to_second_order(fn):
    check_gradients(fn, distinct((3, 4, 2)), order=2)


def test_sort_gradient_goes_to_where_each_value_came_from():
    x = tp.asarray([3.0, -1.0, 2.0, 0.5])
    weights = tp.asarray([1.0, 10.0, 100.0, 1000.0])
    g = tp.grad(lambda t: tp.sum(tp.sort(t, descending=True) * weights))(x)
    assert g.tolist() == [1.0, 1000.0, 10.0, 100.0]


SMOOTH = [
    pytest.param(lambda x: tp.diff(x) ** 2, id="diff"),
    pytest.param(lambda x: tp.diff(x, axis=0, n=2) * x[:1], id="diff-n=2-axis=0"),
    pytest.param(lambda x: tp.diff(x, n=3, prepend=x[:, :1] ** 2, append=x[:, -2:]) ** 2,
                 id="diff-prepend-append"),
    pytest.param(lambda x: tp.tril(x) ** 2, id="tril"),
    pytest.param(lambda x: tp.tril(x, k=1) * x, id="tril-k=1"),
    pytest.param(lambda x: tp.triu(x, k=-1) ** 3, id="triu-k=-1"),
    pytest.param(lambda x: tp.triu(tp.reshape(x, (2, 2, 4)), k=2) * 2.0, id="triu-batched"),
    pytest.param(lambda x: tp.meshgrid(x[0], x[1, :2], indexing="xy")[0] ** 2, id="meshgrid"),
]


@pytest.mark.parametrize("fn", SMOOTH)
def test_compositions_to_second_order(fn):
    check_gradients(fn, distinct((4, 4)), order=2)


@pytest.mark.parametrize("fn", [p for p in SMOOTH if p.id in ("diff", "tril", "triu-k=-1")])
def test_compositions_to_third_order(fn):
    check_gradients(fn, distinct((3, 3)), order=3)
