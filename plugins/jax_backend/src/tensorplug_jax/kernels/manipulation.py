"""Shape-manipulation kernels: Reshape, Transpose, BroadcastTo, Concat, Stack, Pad (the target
shapes, permutations, axes and pad widths are static)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from ._jit import with_attrs


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


KERNELS: dict[str, Callable[..., Any]] = {
    "Reshape": with_attrs(_reshape, static=("shape",)),
    "Transpose": with_attrs(_transpose, static=("perm",)),
    "BroadcastTo": with_attrs(_broadcast_to, static=("shape",)),
    "Concat": with_attrs(_concat, static=("axis",)),
    "Stack": with_attrs(_stack, static=("axis",)),
    "Pad": with_attrs(_pad, static=("pad_width",), traced=("constant_value",)),
}
