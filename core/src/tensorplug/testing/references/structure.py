"""Reference values of the structure kernels: Reverse, Tile, SplitV, Unpack, BroadcastArgs,
Diag, MatrixBandPart, TopK. Few cases (CI time): each table's first row on every dtype, its
attribute variants on float64 only."""

from __future__ import annotations

import numpy as np

from tensorplug.dtypes import float32, int32, int64
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references.layout import few_cases
from tensorplug.testing.references.manipulation import table_bad

reference("Reverse", few_cases([
    ([(2, 3)], {"axes": (0,)}), ([(2, 3, 4)], {"axes": (2, 0)}), ([(3,)], {"axes": (-1,)}),
    ([()], {"axes": ()}), ([(0, 2)], {"axes": (0, 1)}), ([(1,)], {"axes": (0,)}),
]), table_bad([([(2, 3)], {"axes": (0, 0)}, ShapeError, "an axis named twice"),
                          ([(2, 3)], {"axes": (2,)}, ShapeError, "an axis out of range")]))(
    lambda x, axes: np.flip(x, axes) if axes else x.copy())

reference("Tile", few_cases([
    ([(2, 3)], {"reps": (2, 1)}), ([(1, 2, 1)], {"reps": (2, 1, 3)}), ([(3,)], {"reps": (0,)}),
    ([()], {"reps": ()}), ([(1,)], {"reps": (2,)}), ([(0, 2)], {"reps": (2, 1)}),
]), table_bad([([(2, 3)], {"reps": (2,)}, ShapeError, "one count for a 2-d input"),
                          ([(2,)], {"reps": (-1,)}, ShapeError, "a negative count")]))(
    lambda x, reps: np.tile(x, reps) if x.ndim else x.copy())


@reference("SplitV", few_cases([
    ([(2, 5)], {"sizes": (1, 3, 1), "axis": 1}), ([(4, 2)], {"sizes": (4,), "axis": 0}),
    ([(3, 2, 2)], {"sizes": (0, 2, 1), "axis": -3}), ([(1,)], {"sizes": (1,), "axis": 0}),
    ([(0, 2)], {"sizes": (0,), "axis": 0}),
]), table_bad([([(2, 5)], {"sizes": (2, 2), "axis": 1}, ShapeError, "sizes short of the axis"),
                          ([()], {"sizes": (1,), "axis": 0}, ShapeError, "a 0-d input")]))
def _split_v(x: np.ndarray, sizes: tuple[int, ...], axis: int) -> tuple[np.ndarray, ...]:
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


reference("Unpack", few_cases([
    ([(3, 2)], {"axis": 0}), ([(2, 3, 2)], {"axis": -1}), ([(2, 1)], {"axis": 1}), ([(1,)], {"axis": 0}),
    ([(2, 0)], {"axis": 0}),
]), table_bad([([()], {"axis": 0}, ShapeError, "a 0-d input"),
                          ([(2, 3)], {"axis": 2}, ShapeError, "an axis out of range")]))(
    lambda x, axis: tuple(np.moveaxis(x, axis, 0)))


def _broadcast_args_cases(spec: KernelSpec) -> list[Case]:
    pairs = [([2, 1, 3], [4, 1]), ([5], [1, 1]), ([1], [7]), ([], [2, 3]), ([0, 1], [3])]
    return [Case((np.asarray(a, d.numpy), np.asarray(b, d.numpy)))
            for d in (int32, int64) for a, b in pairs]


def _broadcast_args_bad(spec: KernelSpec) -> list[BadCase]:
    f = sample((2,), float32)
    m = np.ones((2, 2), np.int32)
    return [BadCase((f, f), error=DTypeError, why="float shapes"),
            BadCase((m, m[0]), error=ShapeError, why="a 2-d shape")]


reference("BroadcastArgs", _broadcast_args_cases, _broadcast_args_bad)(
    lambda s0, s1: np.asarray(np.broadcast_shapes(tuple(s0.tolist()), tuple(s1.tolist())), s0.dtype))

reference("Diag", few_cases([([(3,)], {}), ([(2, 2)], {}), ([()], {}), ([(0,)], {}), ([(1,)], {})]))(
    lambda x: np.diag(x.reshape(-1)).reshape(x.shape + x.shape))


@reference("MatrixBandPart", few_cases([
    ([(3, 4)], {"num_lower": 1, "num_upper": 0}), ([(2, 4, 3)], {"num_lower": -1, "num_upper": 1}),
    ([(3, 3)], {"num_lower": 0, "num_upper": -1}), ([(2, 3)], {"num_lower": -1, "num_upper": -1}),
    ([(3, 2)], {"num_lower": 5, "num_upper": 0}), ([(1, 1)], {"num_lower": 0, "num_upper": 0}),
    ([(0, 3)], {"num_lower": 1, "num_upper": 1}),
]), table_bad([([(3,)], {"num_lower": 0, "num_upper": 0}, ShapeError, "a vector")]))
def _band_part(x: np.ndarray, num_lower: int, num_upper: int) -> np.ndarray:
    keep = np.ones(x.shape[-2:], dtype=bool)
    if num_lower >= 0:
        keep = np.triu(keep, -num_lower)
    if num_upper >= 0:
        keep = np.tril(keep, num_upper)
    return np.where(keep, x, 0).astype(x.dtype)


@reference("TopK", few_cases([
    ([(3, 5)], {"k": 2}), ([(2, 2, 4)], {"k": 4}), ([(4,)], {"k": 0, "sorted": False}), ([(1,)], {"k": 1}),
    ([(2, 0)], {"k": 0}),
]), table_bad([([(2, 3)], {"k": 4}, ShapeError, "k past the last axis"),
                          ([()], {"k": 1}, ShapeError, "a 0-d input")]))
def _top_k(x: np.ndarray, k: int, sorted: bool) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    wide = x.astype(np.float64)  # (exact for the sampled integers; negation cannot wrap there)
    order = np.argsort(-wide, axis=-1, kind="stable")[..., :k]  # (-NaN is NaN: last)
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int64)
