"""Default gradient of MatMul (batched; batch axes broadcast, so they are summed back)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import ops as tp
from ..tensor import Tensor
from ._util import gradient, unbroadcast

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("MatMul", inputs=("x", "y"))
def _matmul(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # x: (..., m, k), y: (..., k, n), dy: (..., m, n)
    return {"x": lambda: unbroadcast(tp.matmul(dy, tp.matrix_transpose(y)), x.shape),
            "y": lambda: unbroadcast(tp.matmul(tp.matrix_transpose(x), dy), y.shape)}
