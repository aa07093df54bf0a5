"""Default gradient of MatMul (batched; batch axes broadcast, so they are summed back)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..ops._convert import caller
from ..tensor import Tensor
from ._util import gradient, unbroadcast

Grads = Mapping[str, Callable[[], Tensor]]


_MATMUL = caller("MatMul")
_TRANSPOSE = caller("Transpose")


def _mT(t: Tensor) -> Tensor:
    n = t.ndim
    return _TRANSPOSE((t,), {"perm": tuple(range(n - 2)) + (n - 1, n - 2)})


@gradient("MatMul", inputs=("x", "y"))
def _matmul(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # x: (..., m, k), y: (..., k, n), dy: (..., m, n); both at least 2-d
    return {"x": lambda: unbroadcast(_MATMUL((dy, _mT(y)), {}), x.shape),
            "y": lambda: unbroadcast(_MATMUL((_mT(x), dy), {}), y.shape)}
