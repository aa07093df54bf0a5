"""Linear-algebra kernels: MatMul (batched; leading axes broadcast; either input transposed by
attribute), at full float32/float64
precision (``precision=HIGHEST``: on accelerators jax's default multiplies float32 in lower
precision, which would not match the numpy backend)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from tensorplug_jax.kernels._jit import JaxKernel, narrow


def _matmul(x: Any, y: Any, transpose_x: bool, transpose_y: bool) -> Any:
    if x.ndim < 2 or y.ndim < 2:  # jnp.matmul would treat 1-d inputs as vectors; the spec refuses
        raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {x.shape} and {y.shape}")
    if transpose_x:
        x = jnp.swapaxes(x, -1, -2)
    if transpose_y:
        y = jnp.swapaxes(y, -1, -2)
    return jnp.matmul(x, y, precision=lax.Precision.HIGHEST)


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    # one compiled function per (transpose_x, transpose_y): the transposes fold into the product
    "MatMul": narrow(_matmul, ("transpose_x", "transpose_y"), np.float32, np.int32),
}
