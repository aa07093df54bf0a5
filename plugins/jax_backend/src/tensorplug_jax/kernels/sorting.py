"""Sorting kernels: Sort, ArgSort, SearchSorted, Unique, UniqueCounts.

Stable sorts in numpy's order (``tensorplug.kernel_helpers.stable_argsort``): NaNs last, also
when descending, where ``jnp.argsort(descending=True)`` would put them first. SearchSorted is
``jnp.searchsorted`` (NaNs largest, as numpy). Unique is ``jnp.unique_all`` (every NaN
distinct), UniqueCounts ``jnp.unique_counts`` (the same sort and values, no inverse); their
outputs' lengths depend on the values, so they cannot run inside ``tp.jit`` (TracedValueError).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tensorplug.errors import TracedValueError
from tensorplug.kernel_helpers import stable_argsort
from tensorplug_jax.kernels._jit import is_traced, with_attrs

_INT64 = np.dtype(np.int64)


def _argsort(x: Any, axis: int) -> Any:
    return jnp.argsort(x, axis=axis, stable=True)


def _sort(x: Any, axis: int, descending: bool, stable: bool) -> Any:
    axis %= x.ndim
    if not descending:
        return jnp.sort(x, axis=axis, stable=True)
    return jnp.take_along_axis(x, stable_argsort(_argsort, x, axis, True), axis=axis)


def _argsort_kernel(x: Any, axis: int, descending: bool, stable: bool) -> Any:
    return stable_argsort(_argsort, x, axis % x.ndim, descending).astype(_INT64)


def _search_sorted(x1: Any, x2: Any, side: str) -> Any:
    if x1.ndim != 1:
        raise ValueError(f"x1 must be 1-d, got shape {x1.shape}")
    return jnp.searchsorted(x1, x2, side=side).astype(_INT64)


def _eager(name: str, x: Any, backend: Any) -> None:
    """TracedValueError for kernel `name` if `x` is traced (its outputs' lengths need values)."""
    if is_traced(x):
        raise TracedValueError(
            f"Kernel '{name}' on backend '{backend.name}': the number of distinct values depends "
            "on the values of its input, which a function being compiled by tp.jit does not have. "
            "Call it outside tp.jit."
        )


def unique(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
    x = inputs[0]
    _eager("Unique", x, backend)
    values, indices, inverse, counts = jnp.unique_all(x)
    return (values, indices.astype(_INT64), inverse.reshape(x.shape).astype(_INT64), counts.astype(_INT64))


def unique_counts(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    x = inputs[0]
    _eager("UniqueCounts", x, backend)
    values, counts = jnp.unique_counts(x)
    return values, counts.astype(_INT64)


_SORT_STATIC = ("axis", "descending", "stable")

KERNELS: dict[str, Callable[..., Any]] = {
    "Sort": with_attrs(_sort, static=_SORT_STATIC),
    "ArgSort": with_attrs(_argsort_kernel, static=_SORT_STATIC),
    "SearchSorted": with_attrs(_search_sorted, static=("side",)),
    "Unique": unique,
    "UniqueCounts": unique_counts,
}
