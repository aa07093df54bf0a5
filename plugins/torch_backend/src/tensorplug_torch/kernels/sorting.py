"""Sorting kernels: Sort, ArgSort, SearchSorted, Unique, UniqueCounts, in numpy's order: stable,
NaNs last (also when descending), -0.0 == +0.0.

Descending sorts are stable ascending sorts of an order-reversing map (exact): floats negated
(NaN stays NaN, so last), integers and bools bit-inverted (~x, which never overflows).
Unique sorts stably and marks where the sorted values change (NaN != NaN: every NaN is its own
value, as numpy's ``equal_nan=False``): the first index of a value is the first of its run, and
the value is read there. Complex values sort as numpy's: first those without NaN, then NaN in the
imaginary part, the real part, both; within each, by real then imaginary part.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug.kernel_helpers import normalize_axis

__all__ = ["KERNELS"]


def _argsort(x: torch.Tensor, axis: int, descending: bool) -> torch.Tensor:
    """The indices that sort `x` along `axis` stably, NaNs last."""
    if descending:
        x = -x if x.is_floating_point() else ~x  # (bool: ~ is logical not)
    return torch.argsort(x, dim=axis, stable=True)


def _argsort_flat(flat: torch.Tensor) -> torch.Tensor:
    """The stable order of a 1-d tensor, complex values as numpy orders them."""
    if not flat.is_complex():
        return torch.argsort(flat, stable=True)
    order = torch.arange(flat.numel(), device=flat.device)
    re, im = flat.real, flat.imag
    nan_class = torch.isnan(im).to(torch.int8) + 2 * torch.isnan(re).to(torch.int8)
    for key in (im, re, nan_class):  # least significant first: each stable sort keeps the last
        order = order[torch.argsort(key[order], stable=True)]
    return order


def sort(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x = inputs[0]
    axis = normalize_axis("Sort", backend.name, attrs["axis"], x.ndim)
    if not attrs["descending"]:
        return torch.sort(x, dim=axis, stable=True).values
    return torch.take_along_dim(x, _argsort(x, axis, True), dim=axis)


def argsort(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x = inputs[0]
    return _argsort(x, normalize_axis("ArgSort", backend.name, attrs["axis"], x.ndim), attrs["descending"])


def _search_key(x: torch.Tensor) -> torch.Tensor:
    """int64 keys ordered as numpy orders `x`'s values (NaN above +inf, all NaNs equal, -0.0 ==
    +0.0): a float's bits, with a negative float's magnitude bits inverted. Integers as they are,
    bools as uint8 (torch.searchsorted compares with <, which NaN fails both ways)."""
    if not x.is_floating_point():
        return x.to(torch.uint8) if x.dtype == torch.bool else x
    wide = torch.where(torch.isnan(x), float("nan"), x.double() + 0.0)  # (one NaN; + 0.0: -0.0 is 0.0)
    bits = wide.view(torch.int64)
    return bits ^ ((bits >> 63) & _MAGNITUDE)


_MAGNITUDE = (1 << 63) - 1


def search_sorted(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x1, x2 = inputs
    if x1.ndim != 1:  # (torch would search each row of an n-d x1)
        raise ValueError(f"x1 must be 1-d, got shape {tuple(x1.shape)}")
    return torch.searchsorted(_search_key(x1), _search_key(x2), side=attrs["side"])


def _unique(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(values, first indices, inverse indices (x's shape), counts) of `x`'s distinct values."""
    flat = x.reshape(-1)
    order = _argsort_flat(flat)
    ordered = flat[order]
    starts = torch.ones_like(ordered, dtype=torch.bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    group = torch.cumsum(starts, 0) - 1
    inverse = torch.empty_like(group).scatter_(0, order, group)
    first = torch.nonzero(starts).reshape(-1)
    counts = torch.diff(first, append=first.new_tensor([flat.numel()]))
    indices = order[first]
    return flat[indices], indices, inverse.reshape(x.shape), counts


def unique(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> tuple[torch.Tensor, ...]:
    return _unique(inputs[0])


def unique_counts(inputs: list[torch.Tensor], attrs: dict[str, Any],
                  backend: Any) -> tuple[torch.Tensor, torch.Tensor]:
    values, _, _, counts = _unique(inputs[0])
    return values, counts


KERNELS: dict[str, Callable[..., Any]] = {
    "Sort": sort,
    "ArgSort": argsort,
    "SearchSorted": search_sorted,
    "Unique": unique,
    "UniqueCounts": unique_counts,
}
