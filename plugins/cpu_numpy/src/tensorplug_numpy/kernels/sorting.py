"""Sorting kernels: Sort, ArgSort, SearchSorted, Unique, UniqueCounts.

Stable sorts in numpy's order (NaNs last, also when descending; the order is
``tensorplug.kernel_helpers.stable_argsort``'s). SearchSorted is ``np.searchsorted``, whose
order is the same. Unique is ``np.unique`` with ``equal_nan=False`` (every NaN distinct):
``np.unique_all``'s answer, which numpy 1.26 lacks. UniqueCounts is ``np.unique`` with counts
only, which sorts in place instead of argsorting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import tensorplug as tp
from tensorplug.kernel_helpers import normalize_axis, stable_argsort
from tensorplug_numpy.kernels._kernel import Kernel

_INT64 = np.dtype(np.int64)


def _argsort(x: Any, axis: int) -> Any:
    return np.argsort(x, axis=axis, kind="stable")


def sort(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    axis = normalize_axis("Sort", backend.name, attrs["axis"], x.ndim)
    if not attrs["descending"]:
        return np.sort(x, axis=axis, kind="stable")
    return np.take_along_axis(x, stable_argsort(_argsort, x, axis, True), axis=axis)


def argsort(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    axis = normalize_axis("ArgSort", backend.name, attrs["axis"], x.ndim)
    return stable_argsort(_argsort, x, axis, attrs["descending"]).astype(_INT64, copy=False)


def search_sorted(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x1, x2 = inputs
    if x1.ndim != 1:  # numpy would search a flattened x1
        raise ValueError(f"x1 must be 1-d, got shape {x1.shape}")
    return np.asarray(np.searchsorted(x1, x2, side=attrs["side"])).astype(_INT64, copy=False)


def unique(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
    """np.unique without return_index, which would make it sort stably (~1.3x dearer): the first
    index of each value is the least index the inverse maps to it, and the values are read there
    (so of -0.0 and +0.0 the first one given is kept, as a stable sort keeps it), and real NaNs
    are put in x's order. Complex values are sorted stably: numpy orders their NaNs in classes
    (NaN in the imaginary part, the real part, both), each in x's order then."""
    flat = inputs[0].reshape(-1)
    if flat.dtype.kind == "c":
        values, indices, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                                     return_counts=True, equal_nan=False)
        return (values, indices.astype(_INT64, copy=False),
                inverse.reshape(inputs[0].shape).astype(_INT64, copy=False),
                counts.astype(_INT64, copy=False))
    values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
    indices = np.full(values.shape, flat.size, _INT64)
    np.minimum.at(indices, inverse, np.arange(flat.size, dtype=_INT64))
    if flat.dtype.kind == "f" and values.size and np.isnan(values[-1]):
        _nans_in_order(flat, indices, inverse)
    return (flat[indices], indices, inverse.reshape(inputs[0].shape).astype(_INT64, copy=False),
            counts.astype(_INT64, copy=False))


def _nans_in_order(flat: Any, indices: Any, inverse: Any) -> None:
    """The real NaNs, which sort last each its own value, put in x's order (a stable sort's, so
    NaNs of different bits come out as numpy's stable np.unique gives them): in place."""
    where = np.flatnonzero(np.isnan(flat))
    first = indices.size - where.size
    indices[first:] = where
    inverse[where] = np.arange(first, indices.size)


def unique_counts(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    """Unique's values and counts, bit for bit. np.unique's unstable sort may put either of -0.0
    and +0.0 first, and NaNs in any order: the zero is the first one given and the NaNs are x's in
    their order, as Unique's first occurrences are. Complex values, which compare equal with
    either sign of zero in each part, are sorted stably (np.unique with the first indices)."""
    flat = inputs[0].reshape(-1)
    if flat.dtype.kind == "c":
        values, _, counts = np.unique(flat, return_index=True, return_counts=True, equal_nan=False)
        return values, counts.astype(_INT64, copy=False)
    values, counts = np.unique(flat, return_counts=True, equal_nan=False)
    if flat.dtype.kind == "f" and values.size:
        zero = np.searchsorted(values, 0)  # (at most one zero: -0.0 == +0.0)
        if zero < values.size and values[zero] == 0:
            values[zero] = flat[np.argmax(flat == 0)]
        if np.isnan(values[-1]):  # (NaNs sort last, each its own value)
            nans = np.isnan(flat)
            values[values.size - np.count_nonzero(nans):] = flat[nans]
    return values, counts.astype(_INT64, copy=False)


_BFLOAT16 = tp.bfloat16.numpy


def _bfloat16_as_float32(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel, run on bfloat16 inputs through their float32 values (exact: ml_dtypes'
    bfloat16 orders NaN wrongly in numpy's sorts), its float outputs given back as bfloat16."""
    def run(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        if inputs[0].dtype != _BFLOAT16:
            return kernel(inputs, attrs, backend)
        out = kernel(tuple(a.astype(np.float32) for a in inputs), attrs, backend)
        outs = out if isinstance(out, tuple) else (out,)
        back = [o.astype(_BFLOAT16) if o.dtype == np.float32 else o for o in outs]
        return tuple(back) if isinstance(out, tuple) else back[0]
    return run


KERNELS: dict[str, Kernel | Callable[..., Any]] = {  # (they only compare and move data)
    name: Kernel(_bfloat16_as_float32(kernel), handles_warnings=True)
    for name, kernel in (("Sort", sort), ("ArgSort", argsort), ("SearchSorted", search_sorted),
                         ("Unique", unique), ("UniqueCounts", unique_counts))
}
