"""Gradients of the layout and structure kernels (MirrorPad, SpaceToBatchND, BatchToSpaceND,
DepthToSpace, SpaceToDepth, Reverse, Tile, SplitV, Unpack, Diag, MatrixBandPart, TopK, Einsum)
against finite differences, to second order (third for a few), on each first-party backend,
and the folds of MirrorPad's and the diagonals of Einsum's gradients against their definitions."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides


def values(shape, key="x"):
    """Deterministic float64 samples, pairwise at least 0.05 apart (TopK is smooth there)."""
    rng = np.random.default_rng(zlib.crc32(f"{key}{shape}".encode()))
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, n)).reshape(shape)


def _first(parts):
    return parts[0] * parts[-1] ** 2


LAYOUT = [
    pytest.param(lambda x: tp.pad(x, ((1, 2), (2, 0)), mode="reflect") ** 2, (3, 4), id="pad-reflect"),
    pytest.param(lambda x: tp.pad(x, ((2, 1), (0, 3)), mode="symmetric") ** 2, (3, 4), id="pad-symmetric"),
    pytest.param(lambda x: tp.pad(x, ((1, 2), (5, 0)), mode="reflect") ** 2, (1, 3), id="pad-reflect-steps"),
    pytest.param(lambda x: tp.nn.space_to_batch_nd(x, (2, 2), ((1, 1), (0, 2))) ** 2, (1, 2, 2, 2),
                 id="space_to_batch_nd"),
    pytest.param(lambda x: tp.nn.batch_to_space_nd(x, (2, 1), ((1, 0), (0, 1))) ** 2, (4, 2, 3),
                 id="batch_to_space_nd"),
    pytest.param(lambda x: tp.nn.depth_to_space(x, 2) ** 2, (1, 2, 1, 8), id="depth_to_space"),
    pytest.param(lambda x: tp.nn.space_to_depth(x, 2, "NCHW") ** 2, (1, 2, 2, 4), id="space_to_depth-NCHW"),
]
STRUCTURE = [
    pytest.param(lambda x: tp.flip(x, axis=(0, 1)) * x, (3, 4), id="flip"),
    pytest.param(lambda x: tp.tile(x, (2, 1, 3)) ** 2, (2, 3), id="tile"),
    pytest.param(lambda x: _first(tp.split(x, [1, 3], axis=1)), (2, 4), id="split"),
    pytest.param(lambda x: _first(tp.unstack(x, axis=1)), (2, 3), id="unstack"),
    pytest.param(lambda x: tp.linalg.tensor_diag(x) ** 2, (2, 2), id="tensor_diag"),
    pytest.param(lambda x: tp.linalg.band_part(x, 1, 0) ** 2, (2, 3, 3), id="band_part"),
    pytest.param(lambda x: tp.top_k(x, 2)[0] ** 2, (3, 5), id="top_k"),
]
EINSUM = [
    pytest.param("ij,jk->ik", [(2, 3), (3, 4)], id="matmul"),
    pytest.param("ij,ij->", [(2, 3), (2, 3)], id="inner"),
    pytest.param("bij,bjk,k->bi", [(2, 2, 3), (2, 3, 2), (2,)], id="three-operands"),
    pytest.param("ii->i", [(3, 3)], id="diagonal"),
    pytest.param("iij,j", [(2, 2, 3), (3,)], id="trace-implicit"),
    pytest.param("ij,k->ijk", [(2, 1), (3,)], id="outer"),
    pytest.param("...j,j->...", [(2, 3, 4), (4,)], id="ellipsis"),
    pytest.param("ij,ij->ij", [(1, 3), (4, 3)], id="size-1-letter"),
    pytest.param("ijk->k", [(2, 3, 2)], id="letters-summed-alone"),
]


@pytest.mark.parametrize("fn,shape", LAYOUT + STRUCTURE)
def test_to_second_order(fn, shape):
    check_gradients(fn, values(shape), order=2)


@pytest.mark.parametrize("equation,shapes", EINSUM)
def test_einsum_to_second_order(equation, shapes):
    args = [values(s, key=f"e{i}") for i, s in enumerate(shapes)]
    check_gradients(lambda *xs: tp.einsum(equation, *xs), *args, order=2)


@pytest.mark.parametrize("fn,shape", [LAYOUT[0], STRUCTURE[4], STRUCTURE[6]])
def test_to_third_order(fn, shape):
    check_gradients(fn, values(shape), order=3)


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_mirror_pad_gradient_counts_every_copy(mode):
    # d sum(pad(x)) / dx = how often each element appears in the padded array (np.pad's count)
    x = np.arange(5.0)
    width = (3, 11) if mode == "reflect" else (13, 2)  # (past the axis's size: padded in steps)
    count = np.bincount(np.pad(np.arange(5), width, mode=mode), minlength=5)
    g = tp.grad(lambda t: tp.sum(tp.pad(t, width, mode=mode)))(tp.asarray(x))
    np.testing.assert_array_equal(g.numpy(), count)


def test_einsum_gradient_of_a_diagonal_is_on_the_diagonal():
    x = values((3, 3))
    g = tp.grad(lambda t: tp.sum(tp.einsum("ii->i", t) * tp.asarray([1.0, 2.0, 3.0])))(tp.asarray(x))
    np.testing.assert_array_equal(g.numpy(), np.diag([1.0, 2.0, 3.0]))


def test_top_k_gradient_goes_to_the_selected_elements():
    x = tp.asarray([[0.5, 3.0, -1.0, 2.0]])
    g = tp.grad(lambda t: tp.sum(tp.top_k(t, 2)[0] * tp.asarray([10.0, 1.0])))(x)
    assert g.numpy().tolist() == [[0.0, 10.0, 0.0, 1.0]]
