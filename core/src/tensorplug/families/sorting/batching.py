"""Batching rule of SearchSorted: insertion indices are counts, of the sorted values below each
value, read off one stable sort per example."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import Axes, Inputs, all_batched, batching_rule, reshaped
from tensorplug.families.manipulation.ops import concat
from tensorplug.families.sorting.ops import argsort
from tensorplug.kernels.dispatcher import dispatcher_of

_SEARCH_SORTED = dispatcher_of("SearchSorted")


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
