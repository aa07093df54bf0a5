"""JVP rules of the structure kernels: the linear ones (Diag, MatrixBandPart, Reverse, SplitV,
Tile, Unpack; SplitV and Unpack give one tangent per part) run on the tangent; TopK's values
take the tangent at the selected indices (its indices have none)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import jvp_rule, linear
from tensorplug.families.indexing.ops import take_along_axis

Tangents = tuple[Tensor | None, ...]

linear("Diag", "MatrixBandPart", "Reverse", "SplitV", "Tile", "Unpack")


@jvp_rule("TopK")
def _top_k(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
           attrs: Mapping[str, Any]) -> tuple[Tensor | None, None]:
    (t,), (_, indices) = tangents, outputs
    return (None if t is None else take_along_axis(t, indices, axis=-1)), None
