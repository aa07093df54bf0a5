"""The Einsum kernel: ``jnp.einsum`` (XLA picks the contraction order), compiled once per
equation, in the operands' dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tensorplug_jax.kernels._jit import JaxKernel, with_attrs


def _einsum(*operands: Any, equation: str) -> Any:
    return jnp.einsum(equation, *operands).astype(operands[0].dtype)


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {"Einsum": with_attrs(_einsum, static=("equation",))}
