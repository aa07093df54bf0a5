"""Reference values of the reductions: Sum, Prod, Max, Min, EuclideanNorm over axis tuples
(keepdims or not), ArgMax and ArgMin (first extremum), Cumsum and Cumprod (exclusive,
reversed). A 0-d input accepts axis 0 or -1 and reduces over nothing, as the specs say."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, accumulator_of, from_numpy_dtype
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, accepted, integer_extremes, sample
from tensorplug.testing.references._base import reference

_WIDE = {np.dtype(np.bool_), np.dtype(np.int32)}
SHAPES = ((), (1,), (4,), (2, 3), (3, 0), (2, 3, 2))
CLEAR_OF_ZERO = Domain(-2, 2, margin=0.3)  # products (and their gradients) stay well scaled


def _axis_variants(ndim: int) -> list[Any]:
    """None (all axes), each end axis (positive and negative, tuple or int), two axes, and
    the empty tuple (reduce over no axis)."""
    out: list[Any] = [None]
    if ndim == 0:  # the specs accept axis 0 or -1 for a 0-d input
        out += [(0,), (-1,)]
    if ndim >= 1:
        out += [(0,), (-1,), 0]
    if ndim >= 2:
        out += [(0, ndim - 1), ()]
    return out


def _grid(dtypes: tuple[DType, ...]) -> set[DType]:
    """The dtypes that get every attribute variant: one float and one integer dtype (the others
    get a few; a compiling backend pays for every distinct case)."""
    kinds = [k for k in ("float", "int") if any(d.kind == k for d in dtypes)]
    return {next(d for d in dtypes if d.kind == k) for k in kinds}


def _extremes(d: DType, attrs: list[dict[str, Any]]) -> list[Case]:
    """Cases of an integer dtype's extremes and 2^(n-1) (``integer_extremes``): a kernel reading
    uint16 as int16 passes small values and fails these."""
    if not d.is_integer:
        return []
    x = integer_extremes(d)
    return [Case((x,), a, label="special") for a in attrs]


def _reduction_cases(domain: Domain, nonempty: bool,
                     extremes: bool = True) -> Callable[[KernelSpec], list[Case]]:
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        grid = _grid(accepted(spec, "x"))
        for d in accepted(spec, "x"):
            if extremes:
                out += _extremes(d, [{"axis": None, "keepdims": False}, {"axis": (0,), "keepdims": True}])
            for i, shape in enumerate(SHAPES):
                x = sample(shape, d, domain, key=(spec.name, i))
                variants = _axis_variants(len(shape)) if d in grid else [None, (-1,)][:1 + bool(shape)]
                for axis in variants:
                    axes = (() if axis is None else (axis,) if isinstance(axis, int) else axis)
                    reduced = range(len(shape)) if axis is None else [a % max(len(shape), 1) for a in axes]
                    if nonempty and shape and any(shape[a] == 0 for a in reduced):
                        continue  # max/min of nothing: a bad case below
                    for keepdims in (False, True):
                        out.append(Case((x,), {"axis": axis, "keepdims": keepdims}))
        return out
    return cases


def _reduction_bad(spec: KernelSpec) -> list[BadCase]:
    d = accepted(spec, "x")[0]
    x = sample((2, 3), d)
    out = [BadCase((x,), {"axis": (2,)}, error=ShapeError, why="an axis out of range"),
           BadCase((x,), {"axis": (0, 0)}, error=ShapeError, why="a repeated axis"),
           BadCase((x,), {"keepdims": "yes"}, error=DTypeError, why="keepdims not a bool")]
    if spec.name in ("Max", "Min"):
        out.append(BadCase((sample((3, 0), d),), {"axis": (1,)}, error=ShapeError,
                           why="max/min over an empty axis"))
    return out


def _reducer(fn: Callable[..., Any], widen: bool) -> Callable[..., Any]:
    def compute(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        dtype = np.int64 if widen and x.dtype in _WIDE else None
        kwargs = {"dtype": dtype} if dtype is not None else {}
        return fn(x, axis=axis if x.ndim else None, keepdims=keepdims, **kwargs)
    return compute


reference("Sum", _reduction_cases(Domain(), False), _reduction_bad)(_reducer(np.sum, True))
reference("Prod", _reduction_cases(CLEAR_OF_ZERO, False), _reduction_bad)(_reducer(np.prod, True))
reference("Max", _reduction_cases(Domain(), True), _reduction_bad)(_reducer(np.max, False))
reference("Min", _reduction_cases(Domain(), True), _reduction_bad)(_reducer(np.min, False))


@reference("EuclideanNorm", _reduction_cases(Domain(), False, extremes=False), _reduction_bad)
def _euclidean_norm(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    squares = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)) ** 2
    out = np.sqrt(np.sum(squares, axis=axis if x.ndim else None, keepdims=keepdims))
    return out.astype(x.real.dtype)


def _arg_cases(spec: KernelSpec) -> list[Case]:
    out = []
    grid = _grid(accepted(spec, "x"))
    for d in accepted(spec, "x"):
        for i, shape in enumerate(((), (1,), (5,), (2, 3), (2, 3, 4), (2, 0))):
            x = sample(shape, d, key=(spec.name, i))  # integers repeat: ties pick the first
            for axis in ([None, 0, -1] if shape else [None, 0]) if d in grid else [None, -1 if shape else 0]:
                if axis is None and 0 in shape or axis is not None and shape and shape[axis] == 0:
                    continue
                for keepdims in (False, True):
                    out.append(Case((x,), {"axis": axis, "keepdims": keepdims}))
        out.append(Case((np.array([1, 3, 3, 0, 3], d.numpy),), {"axis": 0, "keepdims": False},
                        label="special"))
    return out


def _arg_bad(spec: KernelSpec) -> list[BadCase]:
    d = accepted(spec, "x")[0]
    return [BadCase((sample((0,), d),), {"axis": None}, error=ShapeError, why="an empty input"),
            BadCase((sample((2, 3), d),), {"axis": 2}, error=ShapeError, why="an axis out of range"),
            BadCase((sample((2, 0), d),), {"axis": 1}, error=ShapeError, why="an empty axis")]


def _arg(fn: Callable[..., Any]) -> Callable[..., Any]:
    def compute(x: np.ndarray, axis: int | None, keepdims: bool) -> np.ndarray:
        return fn(x, axis=axis if x.ndim else None, keepdims=keepdims)
    return compute


reference("ArgMax", _arg_cases, _arg_bad)(_arg(np.argmax))
reference("ArgMin", _arg_cases, _arg_bad)(_arg(np.argmin))


def _cumulative_cases(domain: Domain) -> Callable[[KernelSpec], list[Case]]:
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        grid = _grid(accepted(spec, "x"))
        for d in accepted(spec, "x"):
            out += _extremes(d, [{"axis": 0, "exclusive": False, "reverse": False},
                                 {"axis": 0, "exclusive": True, "reverse": True}])
            for i, shape in enumerate(((), (0,), (1,), (5,), (2, 3), (3, 0))):
                x = sample(shape, d, domain, key=(spec.name, i))
                axes = [0] if not shape else [0, -1] if len(shape) == 1 else [0, 1, -1]
                flags = [(e, r) for e in (False, True) for r in (False, True)]
                if d not in grid:
                    axes, flags = axes[-1:], [(False, False), (True, True)]
                for axis in axes:
                    for exclusive, reverse in flags:
                        out.append(Case((x,), {"axis": axis, "exclusive": exclusive, "reverse": reverse}))
        return out
    return cases


def _cumulative_bad(spec: KernelSpec) -> list[BadCase]:
    d = accepted(spec, "x")[0]
    return [BadCase((sample((2, 3), d),), {"axis": 2}, error=ShapeError, why="an axis out of range"),
            BadCase((sample((2, 3), d),), {"axis": (0, 1)}, error=DTypeError, why="a tuple axis")]


def _cumulative(ufunc: np.ufunc) -> Callable[..., Any]:
    def compute(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
        dtype = accumulator_of(from_numpy_dtype(x.dtype)).numpy  # (the spec's: int8 -> int64, ...)
        if x.ndim == 0:
            return np.asarray(ufunc.identity if exclusive else x, dtype=dtype)
        y = ufunc.accumulate(np.flip(x, axis) if reverse else x, axis=axis, dtype=dtype)
        if exclusive:
            moved = np.moveaxis(y, axis, 0)
            shifted = np.empty_like(moved)
            shifted[:1] = ufunc.identity
            shifted[1:] = moved[:-1]
            y = np.moveaxis(shifted, 0, axis)
        return np.flip(y, axis) if reverse else y
    return compute


reference("Cumsum", _cumulative_cases(Domain()), _cumulative_bad)(_cumulative(np.add))
reference("Cumprod", _cumulative_cases(CLEAR_OF_ZERO), _cumulative_bad)(_cumulative(np.multiply))
