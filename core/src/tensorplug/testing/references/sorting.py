"""Reference values of the sorting family: Sort and ArgSort (stable, NaNs last also when
descending), SearchSorted (both sides), Unique (numpy's unique_all: every NaN distinct) and
UniqueCounts (its values and counts).

The descending order is computed independently of any backend's method: a lexicographic sort
by (is NaN, descending rank of the value, position)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, bfloat16, float32, is_floating_numpy
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, accepted, sample
from tensorplug.testing.references._base import reference

SHAPES = ((1,), (6,), (2, 5), (3, 0), (2, 3, 4))
FEW = Domain(-2, 2)  # integers repeat: ties show whether a sort is stable


def _special(d: DType) -> np.ndarray:
    """Ties, signed zeros and NaNs for a float dtype; ties alone for an integer one."""
    if d.is_bool:
        return np.array([True, False, False, True, True])
    if d.is_integer:
        low = -1 if d.is_signed_integer else 1
        return np.array([2, low, 2, 0, low, 2], d.numpy)
    return np.array([1.5, np.nan, -0.0, 1.5, 0.0, -np.inf, np.nan, 2.0], d.numpy)


def _grid(dtypes: tuple[DType, ...]) -> set[DType]:
    """The dtypes that get every shape and axis: one float and one integer dtype (the others
    get a few; a compiling backend pays for every distinct case)."""
    kinds = [k for k in ("float", "int") if any(d.kind == k for d in dtypes)]
    return {next(d for d in dtypes if d.kind == k) for k in kinds}


def _sort_cases(spec: KernelSpec) -> list[Case]:
    out = []
    grid = _grid(accepted(spec, "x"))
    for d in accepted(spec, "x"):
        for i, shape in enumerate(SHAPES if d in grid else SHAPES[:2] + SHAPES[3:4]):
            x = sample(shape, d, FEW, key=(spec.name, i))
            for axis in sorted({0, -1, len(shape) - 1}) if d in grid else [-1]:
                for descending in (False, True):
                    out.append(Case((x,), {"axis": axis, "descending": descending}))
        special = _special(d)
        for descending in (False, True):
            out.append(Case((special,), {"descending": descending}, label="special"))
    return out


def _sort_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((2, 3), float32)
    return [BadCase((x,), {"axis": 2}, error=ShapeError, why="an axis out of range"),
            BadCase((sample((), float32),), {}, error=ShapeError, why="a 0-d input"),
            BadCase((x,), {"descending": "yes"}, error=DTypeError, why="descending not a bool")]


def _bfloat16_as_float32(compute: Callable[..., Any]) -> Callable[..., Any]:
    """`compute` on the float32 values of bfloat16 inputs (exact; ml_dtypes' bfloat16 orders NaN
    wrongly in numpy's sorts): its values are compared in bfloat16 again."""
    def run(*arrays: np.ndarray, **attrs: Any) -> Any:
        return compute(*(a.astype(np.float32) if a.dtype == bfloat16.numpy else a for a in arrays), **attrs)
    return run


def _order(v: np.ndarray, descending: bool) -> np.ndarray:
    """The stable order of the 1-d `v`: ascending as numpy, or descending with NaNs last."""
    if not descending:
        return np.argsort(v, kind="stable")
    nan = np.isnan(v) if is_floating_numpy(v.dtype) else np.zeros(v.shape, bool)
    rank = np.unique(v, return_inverse=True)[1].reshape(v.shape)  # -0.0 and 0.0 share one
    return np.lexsort((np.arange(v.size), -rank, nan))


def _argsort(x: np.ndarray, axis: int, descending: bool, stable: bool) -> np.ndarray:
    if x.size == 0:
        return np.zeros(x.shape, np.int64)
    return np.apply_along_axis(_order, axis, x, descending)


@reference("Sort", _sort_cases, _sort_bad)
@_bfloat16_as_float32
def _sort(x: np.ndarray, axis: int, descending: bool, stable: bool) -> np.ndarray:
    return np.take_along_axis(x, _argsort(x, axis, descending, stable), axis=axis)


reference("ArgSort", _sort_cases, _sort_bad)(_bfloat16_as_float32(_argsort))


def _search_cases(spec: KernelSpec) -> list[Case]:
    out = []
    grid = _grid(accepted(spec, "x1"))
    for d in accepted(spec, "x1"):
        x1 = np.sort(sample((7,), d, FEW, key=(spec.name, "x1")), kind="stable")
        for i, shape in enumerate(((), (1,), (4,), (2, 3), (0,)) if d in grid else ((2, 3),)):
            x2 = sample(shape, d, Domain(-3, 3), key=(spec.name, i))
            for side in ("left", "right"):
                out.append(Case((x1, x2), {"side": side}))
        out.append(Case((np.sort(x1[:0]), sample((3,), d, key=spec.name)), {"side": "left"}))
        # (sorted as float64: bfloat16's own numpy sort misplaces NaN)
        special = np.sort(_special(d).astype(np.float64)).astype(d.numpy)
        for side in ("left", "right"):
            out.append(Case((special, _special(d)), {"side": side}, label="special"))
    return out


def _search_bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((3,), float32)
    return [BadCase((sample((2, 3), float32), x), {}, error=ShapeError, why="a 2-d x1"),
            BadCase((sample((), float32), x), {}, error=ShapeError, why="a 0-d x1"),
            BadCase((x, x), {"side": "middle"}, error=ShapeError, why="side not 'left' or 'right'")]


@reference("SearchSorted", _search_cases, _search_bad)
@_bfloat16_as_float32
def _search_sorted(x1: np.ndarray, x2: np.ndarray, side: str) -> np.ndarray:
    return np.searchsorted(x1, x2, side=side)  # type: ignore[call-overload]


def _unique_cases(spec: KernelSpec) -> list[Case]:
    out = []
    grid = _grid(accepted(spec, "x"))
    for d in accepted(spec, "x"):
        shapes = ((), (0,), (1,), (7,), (2, 4), (2, 0)) if d in grid else ((7,),)
        for i, shape in enumerate(shapes):
            out.append(Case((sample(shape, d, FEW, key=(spec.name, i)),)))
        out.append(Case((_special(d),), label="special"))
    return out


@reference("Unique", _unique_cases)
@_bfloat16_as_float32
def _unique(x: np.ndarray) -> tuple[Any, ...]:
    values, first, inverse, counts = np.unique(x.reshape(-1), return_index=True, return_inverse=True,
                                               return_counts=True, equal_nan=False)
    return values, first, inverse.reshape(x.shape), counts


@reference("UniqueCounts", _unique_cases)
@_bfloat16_as_float32
def _unique_counts(x: np.ndarray) -> tuple[Any, ...]:
    values, _, counts = np.unique(x.reshape(-1), return_index=True, return_counts=True, equal_nan=False)
    return values, counts  # (the first indices make the sort stable: first of -0.0 and +0.0)
