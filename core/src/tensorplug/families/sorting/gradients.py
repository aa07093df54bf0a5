"""Default gradient of the sorting family: Sort (ArgSort, SearchSorted and Unique are not
differentiable).

Sort permutes each lane along its axis, so its gradient sends each element of dy back to the
place its value came from: dy gathered with the inverse permutation (the argsort of the
argsort), itself differentiable in dy through take_along_axis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel
from tensorplug.families.indexing.ops import take_along_axis
from tensorplug.kernels.shape_rules import normalize_axis

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("Sort", inputs=("x",))
def _sort(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        axis = normalize_axis(attrs["axis"], x.ndim)
        order = kernel("ArgSort", x, axis=axis, descending=attrs["descending"], stable=True)
        back = kernel("ArgSort", order, axis=axis)  # where each element of x went
        return take_along_axis(dy, back, axis=axis)

    return {"x": dx}
