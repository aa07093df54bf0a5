"""Sorting and searching ops (Python Array API names): sort, argsort, searchsorted,
count_nonzero.

The order is the kernels' (``specs.sorting``): stable, NaNs last also when descending, -0.0 and
+0.0 equal. ``stable=False`` is accepted and sorts stably too, as the standard allows.
"""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_
from tensorplug.errors import ArgumentError, DTypeError, IndexOutOfRangeError, ShapeError
from tensorplug.families._common.convert import asarray, caller, convert_pair
from tensorplug.families.elementwise.ops import not_equal
from tensorplug.families.indexing.ops import take
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.families.sorting.spec import SIDES, ordered_dtype, sort_axis, sorted_haystack
from tensorplug.kernels.shape_rules import normalize_axes

__all__ = ["argsort", "count_nonzero", "searchsorted", "sort"]

_SORT = caller("Sort")
_ARGSORT = caller("ArgSort")
_SEARCH_SORTED = caller("SearchSorted")


def _sort_args(op: str, x: Any, axis: int, descending: bool, stable: bool) -> tuple[Tensor, dict[str, Any]]:
    x = asarray(x)
    ordered_dtype(x.dtype, op)
    return x, {"axis": sort_axis(x.shape, axis, op), "descending": valid.flag(descending, op, "descending"),
               "stable": valid.flag(stable, op, "stable")}


def sort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """A sorted copy of x along `axis` (stable; NaNs last, also when `descending`)."""
    x, attrs = _sort_args("sort", x, axis, descending, stable)
    return _SORT((x,), attrs)


def argsort(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The int64 indices that sort x along `axis` (stable: equal elements keep their order,
    also when `descending`; NaNs last)."""
    x, attrs = _sort_args("argsort", x, axis, descending, stable)
    return _ARGSORT((x,), attrs)


def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Tensor:
    """int64 indices, of x2's shape, where x2's values would go into the ascending 1-d x1 to
    keep it sorted: side 'left' gives i with x1[i-1] < v <= x1[i], 'right' x1[i-1] <= v < x1[i].
    `sorter`: integer indices that sort x1 (then x1 need not be sorted)."""
    if not isinstance(side, str) or side not in SIDES:
        raise ArgumentError(f"searchsorted: side must be 'left' or 'right', got {valid.shown(side)}.")
    x1 = asarray(x1)
    sorted_haystack(x1.shape, "searchsorted")
    if sorter is not None:
        sorter = asarray(sorter)
        if not sorter.dtype.is_integer:
            raise DTypeError(f"searchsorted: sorter must hold integer indices, got dtype "
                             f"{sorter.dtype.name}; pass argsort(x1).")
        if sorter.shape != x1.shape:
            raise ShapeError(f"searchsorted: sorter must have x1's shape {x1.shape}, got "
                             f"{sorter.shape}; pass argsort(x1).")
        try:
            x1 = take(x1, sorter, axis=0)
        except IndexOutOfRangeError as exc:
            raise IndexOutOfRangeError(f"searchsorted: sorter holds an index out of range of x1 "
                                       f"({str(exc).removeprefix('take: ')}); pass argsort(x1).") from None
    a, v = convert_pair(x1, x2, "searchsorted")
    ordered_dtype(a.dtype, "searchsorted")
    return _SEARCH_SORTED((a, v), {"side": side})


def count_nonzero(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """The number (int64) of non-zero (for bools: True) elements over `axis` (all if None)."""
    x = asarray(x)
    axes = normalize_axes(axis, x.ndim, "count_nonzero")
    keep = valid.flag(keepdims, "count_nonzero", "keepdims")
    hits = x if x.dtype is bool_ else not_equal(x, 0)
    return _sum(hits, axis=axes, keepdims=keep)  # (a sum of bools is int64)
