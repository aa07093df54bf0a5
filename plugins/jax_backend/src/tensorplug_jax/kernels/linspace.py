"""LinSpace: ``jnp.linspace`` in double precision (complex128 for complex dtypes), start and
stop (with endpoint) written at the ends exactly, rounded once to the output dtype. The ends
are traced: new ends do not compile again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from ._jit import with_attrs


def _linspace(num: int, endpoint: bool, dtype: Any, start: Any, stop: Any) -> Any:
    wide = jnp.complex128 if dtype.is_complex else jnp.float64
    start, stop = jnp.asarray(start, wide), jnp.asarray(stop, wide)
    values = jnp.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
    if num:
        values = values.at[0].set(start)
    if num > 1 and endpoint:  # (one value: start, as numpy and the Array API give)
        values = values.at[-1].set(stop)
    return values.astype(dtype.numpy)


KERNELS: dict[str, Callable[..., Any]] = {
    "LinSpace": with_attrs(_linspace, static=("num", "endpoint", "dtype"), traced=("start", "stop")),
}
