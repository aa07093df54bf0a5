"""Reduction kernels: Sum, Prod, Max, Min, EuclideanNorm (over a tuple of axes or all), ArgMax,
ArgMin (one axis or the flattened input), Cumsum, Cumprod (one axis, exclusive and/or reversed).

Sums and products of bool and int32 accumulate in int64, as the spec says. The specs accept
axis 0 or -1 for a 0-d input: reducing a 0-d input over its "axis" reduces over nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from tensorplug.kernel_helpers import ACCUMULATOR_DTYPES, euclidean_norm
from tensorplug_jax.kernels._jit import JaxKernel, narrow, with_attrs

_INT64 = np.dtype(np.int64)


def _reducer(fn: Callable[..., Any], widen: bool, *narrow_dtypes: Any) -> JaxKernel:
    def reduce(x: Any, axis: Any, keepdims: bool) -> Any:
        axis = axis if x.ndim else None
        if widen:
            dtype = ACCUMULATOR_DTYPES.get(np.dtype(x.dtype), x.dtype)
            return fn(x, axis=axis, dtype=dtype, keepdims=keepdims)
        return fn(x, axis=axis, keepdims=keepdims)

    reduce.__name__ = f"reduce_{fn.__name__}"
    return narrow(reduce, ("axis", "keepdims"), *narrow_dtypes)


def _euclidean_norm(x: Any, axis: Any, keepdims: bool) -> Any:
    return euclidean_norm(jnp, x, axis, keepdims)


def _arg(fn: Callable[..., Any]) -> Callable[..., Any]:
    def arg(x: Any, axis: Any, keepdims: bool) -> Any:
        return fn(x, axis=axis if x.ndim else None, keepdims=keepdims).astype(_INT64)

    arg.__name__ = fn.__name__
    return with_attrs(arg, static=("axis", "keepdims"))


def _cumulative(fn: Callable[..., Any], identity: int) -> Callable[..., Any]:
    def cumulative(x: Any, axis: int, exclusive: bool, reverse: bool) -> Any:
        dtype = ACCUMULATOR_DTYPES.get(np.dtype(x.dtype), x.dtype)
        if x.ndim == 0:
            return jnp.asarray(identity, dtype) if exclusive else x.astype(dtype)
        axis = axis % x.ndim
        if reverse:
            x = jnp.flip(x, axis)
        y = fn(x, axis=axis, dtype=dtype)
        n = y.shape[axis]
        if exclusive and n:  # one step along the axis, the identity first
            lead = jnp.full_like(lax.slice_in_dim(y, 0, 1, axis=axis), identity)
            y = jnp.concatenate([lead, lax.slice_in_dim(y, 0, n - 1, axis=axis)], axis=axis)
        return jnp.flip(y, axis) if reverse else y

    cumulative.__name__ = f"cumulative_{fn.__name__}"
    return with_attrs(cumulative, static=("axis", "exclusive", "reverse"))


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    "Sum": _reducer(jnp.sum, True, np.float32),  # (int32 sums widen to int64)
    "Prod": _reducer(jnp.prod, True, np.float32),
    "Max": _reducer(jnp.max, False, np.float32, np.int32),  # empty axes raise
    "Min": _reducer(jnp.min, False, np.float32, np.int32),
    "EuclideanNorm": narrow(_euclidean_norm, ("axis", "keepdims"), np.float32),
    "ArgMax": _arg(jnp.argmax),
    "ArgMin": _arg(jnp.argmin),
    "Cumsum": _cumulative(jnp.cumsum, 0),
    "Cumprod": _cumulative(jnp.cumprod, 1),
}
