"""Layout kernels (TF.js's spatial and batch rearrangements): MirrorPad, SpaceToBatchND,
BatchToSpaceND, DepthToSpace, SpaceToDepth: ``jnp.pad`` and ``tensorplug.kernel_helpers``'
plans run with jax.numpy, compiled once per value of their attributes (all static)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tensorplug.kernel_helpers import batch_to_space, depth_to_space, space_to_batch, space_to_depth
from tensorplug_jax.kernels._jit import JaxKernel, with_attrs


def _mirror_pad(x: Any, paddings: tuple[tuple[int, int], ...], mode: str) -> Any:
    return jnp.pad(x, paddings, mode=mode) if x.ndim else x


def _space_to_batch(x: Any, block_shape: tuple[int, ...], paddings: tuple[tuple[int, int], ...]) -> Any:
    return space_to_batch(jnp, x, block_shape, paddings)


def _batch_to_space(x: Any, block_shape: tuple[int, ...], crops: tuple[tuple[int, int], ...]) -> Any:
    return batch_to_space(jnp, x, block_shape, crops)


def _depth_to_space(x: Any, block_size: int, data_format: str) -> Any:
    return depth_to_space(jnp, x, block_size, data_format)


def _space_to_depth(x: Any, block_size: int, data_format: str) -> Any:
    return space_to_depth(jnp, x, block_size, data_format)


KERNELS: dict[str, JaxKernel | Callable[..., Any]] = {
    "MirrorPad": with_attrs(_mirror_pad, static=("paddings", "mode")),
    "SpaceToBatchND": with_attrs(_space_to_batch, static=("block_shape", "paddings")),
    "BatchToSpaceND": with_attrs(_batch_to_space, static=("block_shape", "crops")),
    "DepthToSpace": with_attrs(_depth_to_space, static=("block_size", "data_format")),
    "SpaceToDepth": with_attrs(_space_to_depth, static=("block_size", "data_format")),
}
