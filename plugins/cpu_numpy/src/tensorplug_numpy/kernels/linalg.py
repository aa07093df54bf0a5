"""Linear-algebra kernels: MatMul (batched; leading axes broadcast; either input transposed
by attribute, as a view: BLAS reads it transposed, nothing is copied)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def matmul(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, y = inputs
    if x.ndim < 2 or y.ndim < 2:  # np.matmul would treat 1-d inputs as vectors; the spec refuses
        raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {x.shape} and {y.shape}")
    if attrs["transpose_x"]:
        x = x.swapaxes(-1, -2)
    if attrs["transpose_y"]:
        y = y.swapaxes(-1, -2)
    return np.matmul(x, y)


KERNELS: dict[str, Callable[..., Any]] = {
    "MatMul": matmul,
}
