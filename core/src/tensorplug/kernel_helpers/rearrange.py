"""Array rearrangements of the layout and structure kernels, written once for any array
namespace `xp` (numpy, jax.numpy): reshapes, transposes, pads and slices whose plan depends on
shapes and attributes alone, so a backend runs them eagerly or inside a compiled function.
Public through ``tensorplug.kernel_helpers``. Attributes arrive checked by the kernel specs
(``specs.layout``, ``specs.structure``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["space_to_batch", "batch_to_space", "depth_to_space", "space_to_depth", "band_part"]

Pairs = Sequence[tuple[int, int]]


def space_to_batch(xp: Any, x: Any, block_shape: Sequence[int], paddings: Pairs) -> Any:
    """TF's SpaceToBatchND: pad the spatial axes, cut them into blocks, move the offsets within
    each block (row-major) in front of the batch."""
    m = len(block_shape)
    rest = x.shape[m + 1:]
    widths = [(0, 0), *[tuple(p) for p in paddings], *[(0, 0)] * len(rest)]
    if any(lo or hi for lo, hi in widths):
        x = xp.pad(x, widths)
    split = [x.shape[0]]
    for i, b in enumerate(block_shape):
        split += [x.shape[i + 1] // b, b]
    x = xp.reshape(x, (*split, *rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = xp.transpose(x, perm)
    return xp.reshape(x, (split[0] * math.prod(block_shape), *split[1::2], *rest))


def batch_to_space(xp: Any, x: Any, block_shape: Sequence[int], crops: Pairs) -> Any:
    """TF's BatchToSpaceND: SpaceToBatchND undone, then `crops` cut off each spatial axis."""
    m = len(block_shape)
    batch = x.shape[0] // math.prod(block_shape)
    spatial, rest = x.shape[1:m + 1], x.shape[m + 1:]
    x = xp.reshape(x, (*block_shape, batch, *spatial, *rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = xp.transpose(x, perm)
    x = xp.reshape(x, (batch, *[s * b for s, b in zip(spatial, block_shape)], *rest))
    if not any(lo or hi for lo, hi in crops):
        return x
    cut = tuple(slice(lo, x.shape[i + 1] - hi) for i, (lo, hi) in enumerate(crops))
    return x[(slice(None),) + cut]


def depth_to_space(xp: Any, x: Any, block_size: int, data_format: str) -> Any:
    """TF's DepthToSpace: channels read as (block_row, block_col, channel) moved into blocks."""
    b = block_size
    if data_format == "NHWC":
        n, h, w, c = x.shape
        x = xp.reshape(x, (n, h, w, b, b, c // (b * b)))
        return xp.reshape(xp.transpose(x, (0, 1, 3, 2, 4, 5)), (n, h * b, w * b, c // (b * b)))
    n, c, h, w = x.shape
    x = xp.reshape(x, (n, b, b, c // (b * b), h, w))
    return xp.reshape(xp.transpose(x, (0, 3, 4, 1, 5, 2)), (n, c // (b * b), h * b, w * b))


def space_to_depth(xp: Any, x: Any, block_size: int, data_format: str) -> Any:
    """TF's SpaceToDepth: DepthToSpace undone."""
    b = block_size
    if data_format == "NHWC":
        n, h, w, c = x.shape
        x = xp.reshape(x, (n, h // b, b, w // b, b, c))
        return xp.reshape(xp.transpose(x, (0, 1, 3, 2, 4, 5)), (n, h // b, w // b, c * b * b))
    n, c, h, w = x.shape
    x = xp.reshape(x, (n, c, h // b, b, w // b, b))
    return xp.reshape(xp.transpose(x, (0, 3, 5, 1, 2, 4)), (n, c * b * b, h // b, w // b))


def band_part(xp: Any, x: Any, num_lower: int, num_upper: int) -> Any:
    """TF's MatrixBandPart: each matrix of x (..., M, N) kept where -num_lower <= j - i <=
    num_upper (a negative bound keeps that whole triangle), zeros elsewhere."""
    rows, cols = x.shape[-2:]
    offset = xp.arange(cols)[None, :] - xp.arange(rows)[:, None]  # j - i
    keep = xp.ones((rows, cols), dtype=bool)
    if num_lower >= 0:
        keep = keep & (offset >= -num_lower)
    if num_upper >= 0:
        keep = keep & (offset <= num_upper)
    return xp.where(keep, x, xp.zeros((), dtype=x.dtype))
