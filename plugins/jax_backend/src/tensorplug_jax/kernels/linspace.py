"""LinSpace: numpy's linspace formula (``i * step + start``, step = (stop - start) / div) in
double precision (complex128 for complex dtypes), start and stop (with endpoint) written at the
ends exactly, rounded once to the output dtype: the same values as the numpy backend, so that
``num`` points without the endpoint are the first ``num`` of ``num + 1`` with it
(``jnp.linspace``'s own formula differs in the last bit). The ends are traced: new ends do not
compile again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tensorplug_jax.kernels._jit import with_attrs


def _linspace(num: int, endpoint: bool, dtype: Any, start: Any, stop: Any) -> Any:
    wide = jnp.complex128 if dtype.is_complex else jnp.float64
    start, stop = jnp.asarray(start, wide), jnp.asarray(stop, wide)
    div = num - 1 if endpoint else num
    steps = jnp.arange(num, dtype=wide)
    if div > 0:
        step = (stop - start) / div
        values = jnp.where(step == 0, steps / div * (stop - start), steps * step) + start
    else:
        values = steps * (stop - start) + start
    if num:
        values = values.at[0].set(start)
    if num > 1 and endpoint:  # (one value: start, as numpy and the Array API give)
        values = values.at[-1].set(stop)
    return values.astype(dtype.numpy)


KERNELS: dict[str, Callable[..., Any]] = {
    "LinSpace": with_attrs(_linspace, static=("num", "endpoint", "dtype"), traced=("start", "stop")),
}
