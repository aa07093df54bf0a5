"""Linear-algebra kernels: MatMul (batched; leading axes broadcast; either input transposed by
attribute), at full float32/float64
precision (``precision=HIGHEST``: on accelerators jax's default multiplies float32 in lower
precision, which would not match the numpy backend)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._jit import narrow


def _matmul(x: Any, y: Any, transpose_x: bool, transpose_y: bool) -> Any:
    if x.ndim < 2 or y.ndim < 2:  # jnp.matmul would treat 1-d inputs as vectors; the spec refuses
        raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {x.shape} and {y.shape}")
    if transpose_x:
        x = jnp.swapaxes(x, -1, -2)
    if transpose_y:
        y = jnp.swapaxes(y, -1, -2)
    return jnp.matmul(x, y, precision=lax.Precision.HIGHEST)


# one compiled function per (transpose_x, transpose_y): the transposes fold into the product
_VARIANTS = {(tx, ty): jax.jit(functools.partial(_matmul, transpose_x=tx, transpose_y=ty))
             for tx in (False, True) for ty in (False, True)}


def matmul(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, y = inputs
    return _VARIANTS[attrs["transpose_x"], attrs["transpose_y"]](x, y)


matmul.direct = _VARIANTS  # type: ignore[attr-defined]
matmul.direct_attrs = ("transpose_x", "transpose_y")  # type: ignore[attr-defined]
matmul.direct_checked = True  # type: ignore[attr-defined]  # (_matmul refuses what the spec does)

KERNELS: dict[str, Callable[..., Any]] = {
    "MatMul": narrow(matmul, np.float32, np.int32),
}
