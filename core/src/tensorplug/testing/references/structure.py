"""Reference values of the structure kernels: Reverse, Tile, SplitV, Unpack, BroadcastArgs,
Diag, MatrixBandPart, TopK, Einsum. Few cases (CI time): each table's first row on float32 and
float64 (and int32 where integers take another path), its attribute variants on float64 only."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dtypes import float32, float64, int32, int64
from ...errors import DTypeError, ShapeError
from ...kernel_spec import KernelSpec
from ..inputs import BadCase, Case, sample
from ._base import reference
from .layout import few_cases
from .manipulation import table_bad

_INTS_TOO = (float32, float64, int32)

reference("Reverse", few_cases([
    ([(2, 3)], {"axes": (0,)}), ([(2, 3, 4)], {"axes": (2, 0)}), ([(3,)], {"axes": (-1,)}),
    ([()], {"axes": ()}), ([(0, 2)], {"axes": (0, 1)}),
], _INTS_TOO), table_bad([([(2, 3)], {"axes": (0, 0)}, ShapeError, "an axis named twice"),
                          ([(2, 3)], {"axes": (2,)}, ShapeError, "an axis out of range")]))(
    lambda x, axes: np.flip(x, axes) if axes else x.copy())

reference("Tile", few_cases([
    ([(2, 3)], {"reps": (2, 1)}), ([(1, 2, 1)], {"reps": (2, 1, 3)}), ([(3,)], {"reps": (0,)}),
    ([()], {"reps": ()}),
], _INTS_TOO), table_bad([([(2, 3)], {"reps": (2,)}, ShapeError, "one count for a 2-d input"),
                          ([(2,)], {"reps": (-1,)}, ShapeError, "a negative count")]))(
    lambda x, reps: np.tile(x, reps) if x.ndim else x.copy())


@reference("SplitV", few_cases([
    ([(2, 5)], {"sizes": (1, 3, 1), "axis": 1}), ([(4, 2)], {"sizes": (4,), "axis": 0}),
    ([(3, 2, 2)], {"sizes": (0, 2, 1), "axis": -3}),
], _INTS_TOO), table_bad([([(2, 5)], {"sizes": (2, 2), "axis": 1}, ShapeError, "sizes short of the axis"),
                          ([()], {"sizes": (1,), "axis": 0}, ShapeError, "a 0-d input")]))
def _split_v(x: np.ndarray, sizes: tuple[int, ...], axis: int) -> tuple[np.ndarray, ...]:
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


reference("Unpack", few_cases([
    ([(3, 2)], {"axis": 0}), ([(2, 3, 2)], {"axis": -1}), ([(2, 1)], {"axis": 1}),
], _INTS_TOO), table_bad([([()], {"axis": 0}, ShapeError, "a 0-d input"),
                          ([(2, 3)], {"axis": 2}, ShapeError, "an axis out of range")]))(
    lambda x, axis: tuple(np.moveaxis(x, axis, 0)))


def _broadcast_args_cases(spec: KernelSpec) -> list[Case]:
    pairs = [([2, 1, 3], [4, 1]), ([5], [1, 1]), ([1], [7]), ([], [2, 3])]
    return [Case((np.asarray(a, d.numpy), np.asarray(b, d.numpy)), label="special")
            for d in (int32, int64) for a, b in pairs]


def _broadcast_args_bad(spec: KernelSpec) -> list[BadCase]:
    f = sample((2,), float32)
    m = np.ones((2, 2), np.int32)
    return [BadCase((f, f), error=DTypeError, why="float shapes"),
            BadCase((m, m[0]), error=ShapeError, why="a 2-d shape")]


reference("BroadcastArgs", _broadcast_args_cases, _broadcast_args_bad)(
    lambda s0, s1: np.asarray(np.broadcast_shapes(tuple(s0.tolist()), tuple(s1.tolist())), s0.dtype))

reference("Diag", few_cases([([(3,)], {}), ([(2, 2)], {}), ([()], {}), ([(0,)], {})], _INTS_TOO))(
    lambda x: np.diag(x.reshape(-1)).reshape(x.shape + x.shape))


@reference("MatrixBandPart", few_cases([
    ([(3, 4)], {"num_lower": 1, "num_upper": 0}), ([(2, 4, 3)], {"num_lower": -1, "num_upper": 1}),
    ([(3, 3)], {"num_lower": 0, "num_upper": -1}), ([(2, 3)], {"num_lower": -1, "num_upper": -1}),
    ([(3, 2)], {"num_lower": 5, "num_upper": 0}),
], _INTS_TOO), table_bad([([(3,)], {"num_lower": 0, "num_upper": 0}, ShapeError, "a vector")]))
def _band_part(x: np.ndarray, num_lower: int, num_upper: int) -> np.ndarray:
    keep = np.ones(x.shape[-2:], dtype=bool)
    if num_lower >= 0:
        keep = np.triu(keep, -num_lower)
    if num_upper >= 0:
        keep = np.tril(keep, num_upper)
    return np.where(keep, x, 0).astype(x.dtype)


@reference("TopK", few_cases([
    ([(3, 5)], {"k": 2}), ([(2, 2, 4)], {"k": 4}), ([(4,)], {"k": 0, "sorted": False}),
], _INTS_TOO), table_bad([([(2, 3)], {"k": 4}, ShapeError, "k past the last axis"),
                          ([()], {"k": 1}, ShapeError, "a 0-d input")]))
def _top_k(x: np.ndarray, k: int, sorted: bool) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]  # (sampled ints stay far from the minimum)
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int64)


def _einsum_cases(spec: KernelSpec) -> list[Case]:
    """float64 (the gradient check's) on two equations only: each new equation and shape
    compiles anew on jax; tests/test_gradients_structure.py checks more."""
    rows: list[tuple[Any, str, list[tuple[int, ...]]]] = [
        (float64, "ij,jk->ik", [(2, 3), (3, 2)]), (float64, "iij->j", [(2, 2, 3)]),
        (float32, "bij,bjk,k->bi", [(2, 2, 3), (2, 3, 2), (2,)]), (int32, "ij,jk->ik", [(2, 3), (3, 4)]),
        (float32, "...j,j->...", [(1, 3, 4), (4,)]), (float32, "ij,ij->ij", [(1, 3), (2, 3)]),
        (float32, "ii->i", [(3, 3)]), (float32, "i,i->", [(0,), (0,)]),
    ]
    return [Case(tuple(sample(s, d, key=("Einsum", i, k)) for k, s in enumerate(shapes)),
                 {"equation": equation}) for i, (d, equation, shapes) in enumerate(rows)]


def _einsum_bad(spec: KernelSpec) -> list[BadCase]:
    a, b = sample((2, 3), float32), sample((4, 3), float32)
    return [BadCase((a, b), {"equation": "ij,jk->ik"}, error=ShapeError, why="sizes that differ"),
            BadCase((a,), {"equation": "ij,jk->ik"}, error=ShapeError, why="two terms for one operand"),
            BadCase((a,), {"equation": "ij->ii"}, error=ShapeError, why="a repeated output letter"),
            BadCase((a,), {"equation": "i->i"}, error=ShapeError, why="a term of the wrong rank")]


@reference("Einsum", _einsum_cases, _einsum_bad)
def _einsum(*operands: np.ndarray, equation: str) -> Any:
    return np.einsum(equation, *operands)
