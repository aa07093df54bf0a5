"""Linear-algebra kernels: MatMul (batched; leading axes broadcast), at full float32/float64
precision (``precision=HIGHEST``: on accelerators jax's default multiplies float32 in lower
precision, which would not match the numpy backend)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from ._jit import with_attrs


def _matmul(x: Any, y: Any) -> Any:
    if x.ndim < 2 or y.ndim < 2:  # jnp.matmul would treat 1-d inputs as vectors; the spec refuses
        raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {x.shape} and {y.shape}")
    return jnp.matmul(x, y, precision=lax.Precision.HIGHEST)


KERNELS: dict[str, Callable[..., Any]] = {
    "MatMul": with_attrs(_matmul),
}
