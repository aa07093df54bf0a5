"""Batching rules of the kernels that count values: Bincount and DenseBincount (each example's
values a row of DenseBincount's 2-d input), SearchSorted (insertion indices are counts: of the
sorted values below each value, read off one stable sort per example)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tensorplug.batching._util import Axes, Inputs, all_batched, batching_rule, reshaped
from tensorplug.core.tensor import Tensor
from tensorplug.kernels.dispatcher import dispatcher_of
from tensorplug.ops.manipulation import concat
from tensorplug.ops.sorting import argsort

_DENSE_BINCOUNT, _SEARCH_SORTED = dispatcher_of("DenseBincount"), dispatcher_of("SearchSorted")


def _counts(inputs: Inputs, axes: Axes, size: int, binary: bool) -> tuple[Tensor, int]:
    """The counts of each row of every example's x (1-d: one row), by DenseBincount's rows; empty
    weights (count each value once) stay empty."""
    x, weights = all_batched(inputs, axes)
    lead = x.shape[:-1]
    rows = (math.prod(lead), x.shape[-1])
    weights = reshaped(weights, rows if weights.shape == x.shape else (0,))
    out = _DENSE_BINCOUNT((reshaped(x, rows), weights), {"size": size, "binary_output": binary})
    return reshaped(out, lead + (size,)), 0


@batching_rule("Bincount")
def _bincount(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    return _counts(inputs, axes, attrs["size"], False)


@batching_rule("DenseBincount")
def _dense_bincount(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    return _counts(inputs, axes, attrs["size"], attrs["binary_output"])


@batching_rule("SearchSorted")
def _search_sorted(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int | None]:
    """A shared x1: the kernel once, the values' batch axis kept. Each example's x1: the index
    of value v is the number of x1's values below it ('left'; not above it: 'right'), its place
    in the stable sort of x1 and the values together (the values first for 'left', after x1 for
    'right', so that equal x1 values go after or before), less its place among the values."""
    (x1, x2), (a1, a2) = inputs, axes
    if a1 is None:
        return _SEARCH_SORTED((x1, x2), attrs), a2
    x1, x2 = all_batched(inputs, axes)
    size, n = x1.shape
    m = math.prod(x2.shape[1:])
    values = reshaped(x2, (size, m))
    left = attrs["side"] == "left"
    both = concat([values, x1] if left else [x1, values], axis=1)
    place = argsort(argsort(both, axis=1), axis=1)
    place = place[:, :m] if left else place[:, n:]
    among = argsort(argsort(values, axis=1), axis=1)
    return reshaped(place - among, x2.shape), 0
