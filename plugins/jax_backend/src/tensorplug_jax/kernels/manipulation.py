"""Shape-manipulation kernels: Reshape, Transpose, BroadcastTo, Concat, Stack, Pad, Roll (the
target shapes, permutations, axes, pad widths and shifts are static). Roll moves data and
creates nothing of a default dtype, so its compiled variants are its direct calls for the
32-bit dtypes (``_jit.narrow``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tensorplug_jax.kernels._jit import JaxKernel, narrow, with_attrs


def _reshape(x: Any, shape: tuple[int, ...]) -> Any:
    return jnp.reshape(x, shape)


def _transpose(x: Any, perm: tuple[int, ...]) -> Any:
    return jnp.transpose(x, perm)


def _broadcast_to(x: Any, shape: tuple[int, ...]) -> Any:
    return jnp.broadcast_to(x, shape)


def _concat(*xs: Any, axis: int) -> Any:
    return jnp.concatenate(xs, axis=axis)


def _stack(*xs: Any, axis: int) -> Any:
    return jnp.stack(xs, axis=axis)


def _pad(x: Any, pad_width: tuple[tuple[int, int], ...], constant_value: float) -> Any:
    if len(pad_width) != x.ndim:
        raise ValueError(f"{len(pad_width)} pad widths for a {x.ndim}-d input")
    if not pad_width:  # a 0-d input: nothing to pad (jnp.pad refuses the empty widths)
        return x
    return jnp.pad(x, pad_width, constant_values=jnp.asarray(constant_value).astype(x.dtype))


_PAD = with_attrs(_pad, static=("pad_width",), traced=("constant_value",))


def pad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """Pad, its fill value given to the compiled function as a scalar of x's dtype (a Python int
    past int64's range, such as uint64's largest, would not convert to a jax value)."""
    value = np.asarray(attrs["constant_value"], dtype=inputs[0].dtype)
    return _PAD(inputs, {**attrs, "constant_value": value}, backend)


def _roll(x: Any, shift: tuple[int, ...], axis: tuple[int, ...]) -> Any:
    return jnp.roll(x, shift, axis) if axis else x


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    "Reshape": with_attrs(_reshape, static=("shape",)),
    "Transpose": with_attrs(_transpose, static=("perm",)),
    "BroadcastTo": with_attrs(_broadcast_to, static=("shape",)),
    "Concat": with_attrs(_concat, static=("axis",)),
    "Stack": with_attrs(_stack, static=("axis",)),
    "Pad": pad,
    "Roll": narrow(_roll, ("shift", "axis"), np.float32, np.int32, np.bool_, np.complex64),
}
