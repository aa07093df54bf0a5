"""Layout ops (TF.js's spatial and batch rearrangements): ``tp.nn.depth_to_space``,
``space_to_depth``, ``space_to_batch_nd``, ``batch_to_space_nd``, and the mirror modes of
``tp.pad`` (``mirror_pad``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, caller
from tensorplug.families.layout.spec import (
    DATA_FORMATS,
    MIRROR_MODES,
    batch_to_space_shape,
    depth_to_space_shape,
    space_to_batch_shape,
    space_to_depth_shape,
)
from tensorplug.families.manipulation.spec import padded_shape

__all__ = ["batch_to_space_nd", "depth_to_space", "space_to_batch_nd", "space_to_depth"]

_MIRROR_PAD = caller("MirrorPad")
_BROADCAST_TO = caller("BroadcastTo")
_SPACE_TO_BATCH = caller("SpaceToBatchND")
_BATCH_TO_SPACE = caller("BatchToSpaceND")
_DEPTH_TO_SPACE = caller("DepthToSpace")
_SPACE_TO_DEPTH = caller("SpaceToDepth")

Pairs = tuple[tuple[int, int], ...]


#: the most MirrorPad calls one tp.pad makes (each pads by up to the axis's size)
_MAX_STEPS = 64


def mirror_pad(x: Tensor, pairs: Pairs, mode: str) -> Tensor:
    """x padded by one (before, after) pair per axis with its mirror image (`mode` 'reflect'
    or 'symmetric'; checked here): tp.pad's mirror modes. Widths past what one MirrorPad takes
    (the axis's size, less one for 'reflect') are padded in steps, as numpy's are."""
    if mode not in MIRROR_MODES:
        raise ArgumentError(f"pad: mode must be 'constant', 'reflect' or 'symmetric', got {mode!r}.")
    shape = padded_shape(x.shape, pairs, "pad")
    empty = [i for i, (d, (lo, hi)) in enumerate(zip(x.shape, pairs)) if d == 0 and (lo or hi)]
    if empty:
        raise ShapeError(f"pad: axis {empty[0]} of shape {x.shape} is empty: mode '{mode}' has nothing to "
                         "mirror; use mode='constant'.")
    # a size-1 axis mirrors into copies of itself (in numpy's 'reflect' too): broadcast at the end
    ones = any(d == 1 and (lo or hi) for d, (lo, hi) in zip(x.shape, pairs))
    left = [(0, 0) if d == 1 and ones else p for d, p in zip(x.shape, pairs)]
    caps = [max(d - (1 if mode == "reflect" else 0), 1) for d in x.shape]
    steps = max([-(-max(lo, hi) // cap) for cap, (lo, hi) in zip(caps, left)], default=0)
    if steps > _MAX_STEPS:
        raise ShapeError(f"pad: pad_width {pairs} is more than {_MAX_STEPS} times the size of an axis of "
                         f"shape {x.shape} in mode '{mode}'; pad less.")
    valid.checked_size(shape, x._backend, "pad")
    while any(lo or hi for lo, hi in left):
        step = tuple((min(lo, cap), min(hi, cap)) for cap, (lo, hi) in zip(caps, left))
        x = _MIRROR_PAD((x,), {"paddings": step, "mode": mode})
        left = [(lo - a, hi - b) for (lo, hi), (a, b) in zip(left, step)]
    return _BROADCAST_TO((x,), {"shape": shape}) if ones else x


def _pairs(op: str, what: str, values: Any, count: int) -> Pairs:
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):  # (ragged nestings, objects numpy cannot hold)
        arr = np.asarray(None)
    if arr.size and arr.dtype.kind not in "iu":
        raise DTypeError(f"{op}: {what} must hold ints, got {valid.shown(values)}.")
    if arr.shape not in ((count, 2), (0,)) or (arr.size == 0 and count):
        raise ShapeError(f"{op}: {what} {valid.shown(values)} must be {count} (before, after) pairs, "
                         "one per block size.")
    return tuple((int(lo), int(hi)) for lo, hi in arr.reshape(count, 2))


def space_to_batch_nd(x: Any, block_shape: Sequence[int], paddings: Any) -> Tensor:
    """TF's space_to_batch_nd: x of shape (batch, *spatial, *rest) zero-padded by `paddings`
    (one (before, after) pair per block size), each spatial axis cut in blocks of `block_shape`,
    the offsets within a block moved to the batch axis (offset-major)."""
    x = asarray(x)
    blocks = valid.shape(block_shape, "space_to_batch_nd", "block_shape")
    pairs = _pairs("space_to_batch_nd", "paddings", paddings, len(blocks))
    shape = space_to_batch_shape(x.shape, blocks, pairs, "space_to_batch_nd")
    valid.checked_size(shape, x._backend, "space_to_batch_nd")
    return _SPACE_TO_BATCH((x,), {"block_shape": blocks, "paddings": pairs})


def batch_to_space_nd(x: Any, block_shape: Sequence[int], crops: Any) -> Tensor:
    """TF's batch_to_space_nd, space_to_batch_nd undone: the batch's blocks put back into the
    spatial axes, then `crops` (one (before, after) pair per block size) cut off."""
    x = asarray(x)
    blocks = valid.shape(block_shape, "batch_to_space_nd", "block_shape")
    pairs = _pairs("batch_to_space_nd", "crops", crops, len(blocks))
    batch_to_space_shape(x.shape, blocks, pairs, "batch_to_space_nd")
    return _BATCH_TO_SPACE((x,), {"block_shape": blocks, "crops": pairs})


def _format(op: str, data_format: Any) -> str:
    if not isinstance(data_format, str) or data_format not in DATA_FORMATS:
        raise ArgumentError(f"{op}: data_format must be 'NHWC' or 'NCHW', got {valid.shown(data_format)}.")
    return data_format


def depth_to_space(x: Any, block_size: int, data_format: str = "NHWC") -> Tensor:
    """Channels moved into block_size x block_size spatial blocks (TF's depth_to_space; the
    channels read as (block_row, block_col, channel)); x is 4-d, NHWC or NCHW."""
    x = asarray(x)
    b = valid.integer(block_size, "depth_to_space", "block_size")
    fmt = _format("depth_to_space", data_format)
    depth_to_space_shape(x.shape, b, fmt, "depth_to_space")
    return _DEPTH_TO_SPACE((x,), {"block_size": b, "data_format": fmt})


def space_to_depth(x: Any, block_size: int, data_format: str = "NHWC") -> Tensor:
    """Each block_size x block_size spatial block moved into the channels (TF's
    space_to_depth, depth_to_space undone); x is 4-d, NHWC or NCHW."""
    x = asarray(x)
    b = valid.integer(block_size, "space_to_depth", "block_size")
    fmt = _format("space_to_depth", data_format)
    space_to_depth_shape(x.shape, b, fmt, "space_to_depth")
    return _SPACE_TO_DEPTH((x,), {"block_size": b, "data_format": fmt})
