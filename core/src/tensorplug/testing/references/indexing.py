"""Reference values of the indexing kernels: StridedSlice and StridedSliceGrad (normalized
slices, negative steps, empty ranges), Gather and ScatterAdd (negative and repeated indices;
an index out of range must raise IndexOutOfRangeError, not be clamped), NonZero, OneHot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import ALL_NUMERIC_DTYPES, INT_DTYPES, DType, bool_, float32, float64, int64
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, accepted, index_array, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references.manipulation import BadTable, Table, table_bad, table_cases


def _index(slices: Sequence[tuple[int, int, int]]) -> Any:
    return np.ix_(*[np.arange(*s) for s in slices]) if slices else ()


_SLICE: Table = [
    ([(5,)], {"slices": ((0, 5, 1),)}), ([(5,)], {"slices": ((1, 4, 2),)}),
    ([(5,)], {"slices": ((4, -1, -1),)}), ([(5,)], {"slices": ((2, 2, 1),)}),
    ([(3, 4)], {"slices": ((0, 3, 2), (3, 0, -1))}), ([()], {"slices": ()}),
    ([(0,)], {"slices": ((0, 0, 1),)}), ([(1, 3)], {"slices": ((0, 1, 1), (2, -1, -2))}),
    ([(1,)], {"slices": ((0, 1, 1),)}),
]
_SLICE_BAD: BadTable = [([(5,)], {"slices": ((0, 6, 1),)}, ShapeError, "a slice reading past the end"),
              ([(2, 3)], {"slices": ((0, 2, 1),)}, ShapeError, "one slice for a 2-d input"),
              ([(5,)], {"slices": ((0, 5, 0),)}, ShapeError, "a zero step")]
reference("StridedSlice", table_cases(_SLICE), table_bad(_SLICE_BAD))(lambda x, slices: x[_index(slices)])

# (shape, slices): dy has the sliced shape
_SLICE_GRAD = [((5,), ((1, 4, 2),)), ((3, 4), ((0, 3, 2), (3, 0, -1))), ((), ()), ((4,), ((2, 2, 1),)),
               ((2, 3), ((1, -1, -1), (0, 3, 1))), ((1,), ((0, 1, 1),))]


def _slice_grad_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in accepted(spec, "dy"):
        for i, (shape, slices) in enumerate(_SLICE_GRAD):
            dy_shape = tuple(len(range(*s)) for s in slices)
            out.append(Case((sample(dy_shape, d, key=i),), {"shape": shape, "slices": slices}))
    return out


_SLICE_GRAD_BAD: BadTable = [
    ([(3,)], {"shape": (5,), "slices": ((1, 4, 2),)}, ShapeError, "dy of the wrong shape")]


@reference("StridedSliceGrad", _slice_grad_cases, table_bad(_SLICE_GRAD_BAD))
def _slice_grad(dy: np.ndarray, shape: tuple[int, ...], slices: Any) -> np.ndarray:
    out = np.zeros(shape, dtype=dy.dtype)
    out[_index(slices)] = dy
    return out


# (x shape, indices, axis)
_GATHER = [((5,), [0, 4, -1, 2, 2], 0), ((3, 4), [[1, 0], [3, 3]], 1), ((3, 4), [2, -3], -1),
           ((3, 4), 1, 0), ((4,), np.zeros(0, int), 0), ((2, 0), [1], 0), ((1,), [0, 0], 0)]


def _gather_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for j, d in enumerate(accepted(spec, "x")):
        for i, (shape, idx, axis) in enumerate(_GATHER):
            indices = index_array(idx, spec, "indices", j * len(_GATHER) + i)
            out.append(Case((sample(shape, d, key=i), indices), {"axis": axis}))
    return out


def _gather_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((5,), float32)
    return [BadCase((x, np.array([0, 5], np.int64)), {"axis": 0}, error=IndexOutOfRangeError,
                    why="an index past the end (it must not be clamped or wrapped)"),
            BadCase((x, np.array([-6], np.int32)), {"axis": 0}, error=IndexOutOfRangeError,
                    why="a negative index past the start"),
            BadCase((sample((), float32), np.array([0], np.int64)), {"axis": 0}, error=ShapeError,
                    why="a 0-d x"),
            BadCase((x, np.array([0.0])), {"axis": 0}, error=DTypeError, why="float indices")]


reference("Gather", _gather_cases, _gather_bad)(lambda x, indices, axis: np.take(x, indices, axis))

# (output shape, indices, axis): updates get shape[:axis] + indices.shape + shape[axis+1:]
_SCATTER = [((4,), [0, 2, 0], 0), ((3, 2), [1, 1], 1), ((3, 2), [-1, 0], 0), ((3,), np.zeros(0, int), 0),
            ((2, 3), [[0], [1]], 0), ((1,), 0, 0), ((1,), [0], 0)]


def _scatter_cases(spec: KernelSpec) -> list[Case]:
    out = []
    numeric = [t for t in accepted(spec, "updates") if t in ALL_NUMERIC_DTYPES]  # (adding bools: no rule)
    for j, d in enumerate(numeric):
        for i, (shape, idx, axis) in enumerate(_SCATTER):
            indices = index_array(idx, spec, "indices", j * len(_SCATTER) + i)
            a = axis % len(shape)
            updates = sample(shape[:a] + indices.shape + shape[a + 1:], d, key=i)
            out.append(Case((indices, updates), {"shape": shape, "axis": axis}))
    return out


def _scatter_bad(spec: KernelSpec) -> list[BadCase]:
    u = sample((2,), float32)
    return [BadCase((np.array([0, 4], np.int64), u), {"shape": (4,)}, error=IndexOutOfRangeError,
                    why="an index past the end"),
            BadCase((np.array([0, 1], np.int64), sample((3,), float32)), {"shape": (4,)}, error=ShapeError,
                    why="updates of the wrong shape"),
            BadCase((np.array([0], np.int64), sample((1,), float32)), {"shape": ()}, error=ShapeError,
                    why="a 0-d output shape")]


@reference("ScatterAdd", _scatter_cases, _scatter_bad)
def _scatter_add(indices: np.ndarray, updates: np.ndarray, shape: tuple[int, ...], axis: int) -> np.ndarray:
    out = np.zeros(shape, dtype=updates.dtype)
    index: Any = (slice(None),) * (axis % len(shape)) + (indices,)
    np.add.at(out, index, updates)
    return out


def _nonzero_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in accepted(spec, "x"):
        for i, shape in enumerate(((), (0,), (6,), (2, 3), (1,))):
            keep = sample(shape, bool_, key=(i, "keep"))  # about half the elements zero
            out.append(Case((np.where(keep, sample(shape, d, key=i), np.zeros((), d.numpy)),)))
        out.append(Case((np.zeros((3,), d.numpy),), label="special"))
    return out


reference("NonZero", _nonzero_cases)(np.flatnonzero)


def _one_hot_cases(spec: KernelSpec) -> list[Case]:
    out = []
    dtypes: Sequence[DType] = (float32, float64, int64, INT_DTYPES[0])
    for t in accepted(spec, "indices"):
        for idx, depth in (([0, 2, 1, 5, -1], 3), ([[1, 0], [2, 2]], 3), (1, 4),
                           (np.zeros(0, int), 2), ([0, 1], 0), ([2], 3)):
            if t.is_unsigned_integer and np.min(idx, initial=0) < 0:
                continue
            for dtype in dtypes:
                out.append(Case((np.asarray(idx, t.numpy),), {"depth": depth, "dtype": dtype}))
        out.append(Case((np.array([2, 0, 7], t.numpy),), {"depth": 3, "on_value": 5.0, "off_value": -1.0}))
    return out


def _one_hot_bad(spec: KernelSpec) -> list[BadCase]:
    good = np.array([0, 1], np.int64)
    return [BadCase((good,), {"depth": -1}, error=ShapeError, why="a negative depth"),
            BadCase((np.array([0.0, 1.0]),), {"depth": 3}, error=DTypeError, why="float indices")]


@reference("OneHot", _one_hot_cases, _one_hot_bad)
def _one_hot(indices: np.ndarray, depth: int, on_value: float, off_value: float, dtype: DType) -> np.ndarray:
    hot = np.asarray(indices)[..., None] == np.arange(depth)
    return np.where(hot, on_value, off_value).astype(dtype.numpy)
