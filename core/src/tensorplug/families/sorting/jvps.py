"""JVP rule of Sort: sorting permutes each lane, so the tangent is permuted alike (read at the
stable argsort of x, the order Sort's gradient also uses)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import jvp_rule
from tensorplug.families.indexing.ops import take_along_axis
from tensorplug.families.sorting.ops import argsort

Tangents = tuple[Tensor | None, ...]


@jvp_rule("Sort")
def _sort(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
          attrs: Mapping[str, Any]) -> Tensor:
    (x,), (t,) = primals, tangents
    order = argsort(x, axis=attrs["axis"], descending=attrs["descending"], stable=True)
    return take_along_axis(t, order, axis=attrs["axis"])
