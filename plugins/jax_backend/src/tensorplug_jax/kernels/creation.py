"""Creation kernels: Fill, Range, Eye, RandomUniform, RandomNormal, and Threefry2x32 (the hash of
random keys: jax's own threefry primitive, so keys give jax.random's bits).

Every kernel builds its values in the dtype of ``attrs["dtype"]``. The shape and dtype are
static (they shape the computation); the fill value, the seed and the distribution's parameters
are traced, so that new values do not compile again. Random streams come from ``jax.random``
(threefry), keyed by the seed: the same seed gives the same values on this backend; they differ
from the numpy backend's (the spec allows it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.random import threefry2x32_p

from tensorplug.kernel_helpers import range_dtype, range_length
from tensorplug_jax.kernels._jit import with_attrs

_SEED_RANGE = 2**63


def _fill(shape: tuple[int, ...], dtype: Any, value: Any) -> Any:
    return jnp.full(shape, value, dtype=dtype.numpy)


_FILL = with_attrs(_fill, static=("shape", "dtype"), traced=("value",))
_FILL_STATIC = with_attrs(_fill, static=("shape", "dtype", "value"))


def fill(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    value = attrs["value"]
    if isinstance(value, int) and not isinstance(value, bool) and not -_SEED_RANGE <= value < _SEED_RANGE:
        return _FILL_STATIC(inputs, attrs, backend)  # beyond int64: let numpy's rules decide
    return _FILL(inputs, attrs, backend)


def _range(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
    """start + step * i for i < ceil((stop - start) / step), computed in int64 (integer
    arguments) or float64, then cast once, as the numpy backend computes it."""
    steps = jnp.arange(range_length(start, stop, step), dtype=range_dtype(start, stop, step))
    return (steps * step + start).astype(dtype.numpy)


_RANGE = with_attrs(_range, static=("start", "stop", "step", "dtype"))


def _eye(n_rows: int, n_cols: int, k: int, dtype: Any) -> Any:
    return jnp.eye(n_rows, n_cols, k=k, dtype=dtype.numpy)


_EYE = with_attrs(_eye, static=("n_rows", "n_cols", "k", "dtype"))


def _key(seed: Any, negative: bool) -> Any:
    key = jax.random.key(seed)
    return jax.random.fold_in(key, 1) if negative else key  # negative seeds: their own streams


def _uniform(shape: tuple[int, ...], dtype: Any, negative: bool, seed: Any, low: Any, high: Any) -> Any:
    """Samples in [low, high): drawn in the target dtype, kept below `high` where rounding
    low + (high - low) * u would reach it."""
    dt = dtype.numpy
    u = jax.random.uniform(_key(seed, negative), shape, dtype=dt)
    low, high = jnp.asarray(low, dt), jnp.asarray(high, dt)
    out = low + (high - low) * u
    return jnp.where(high > low, jnp.minimum(out, jnp.nextafter(high, low)), out)


def _normal(shape: tuple[int, ...], dtype: Any, negative: bool, seed: Any, mean: Any, stddev: Any) -> Any:
    dt = dtype.numpy
    z = jax.random.normal(_key(seed, negative), shape, dtype=dt)
    return z * jnp.asarray(stddev, dt) + jnp.asarray(mean, dt)


_UNIFORM = with_attrs(_uniform, static=("shape", "dtype", "negative"), traced=("seed", "low", "high"))
_NORMAL = with_attrs(_normal, static=("shape", "dtype", "negative"), traced=("seed", "mean", "stddev"))


def _random(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def run(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        seed = attrs["seed"]
        negative = seed < 0
        seed = (-seed if negative else seed) % _SEED_RANGE
        return kernel(inputs, {**attrs, "seed": np.int64(seed), "negative": negative}, backend)

    run.__name__ = kernel.__name__
    return run


@jax.jit
def _threefry(k1: Any, k2: Any, x1: Any, x2: Any) -> tuple[Any, Any]:
    y1, y2 = threefry2x32_p.bind(*jnp.broadcast_arrays(k1, k2, x1, x2))  # (it takes one shape)
    return y1, y2


def threefry2x32(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any]:
    """jax's threefry2x32 primitive (what ``jax.random`` draws with) of the broadcast inputs."""
    return _threefry(*inputs)


KERNELS: dict[str, Callable[..., Any]] = {
    "Fill": fill,
    "Range": _RANGE,
    "Eye": _EYE,
    "RandomUniform": _random(_UNIFORM),
    "RandomNormal": _random(_NORMAL),
    "Threefry2x32": threefry2x32,
}
