"""Kernel specs of the layout family (TF.js's spatial and batch rearrangements): MirrorPad,
SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth.

``mirror_padded_shape``, ``space_to_batch_shape``, ``batch_to_space_shape`` and
``depth_to_space_shape`` / ``space_to_depth_shape`` are the family's shape rules, shared with
its ops: each takes the public op asking (named in its messages). The layouts are TF's:
SpaceToBatchND takes x of shape (batch, *spatial, *rest) with one block size per spatial axis
and moves the blocks' offsets to the batch axis, offset-major; DepthToSpace reads the channel
axis as (block_row, block_col, channel).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["MIRROR_MODES", "DATA_FORMATS", "mirror_padded_shape", "space_to_batch_shape",
           "batch_to_space_shape", "depth_to_space_shape", "space_to_depth_shape", "as_pairs"]

Shape = Sequence[int]
Pairs = tuple[tuple[int, int], ...]
MIRROR_MODES = ("reflect", "symmetric")
DATA_FORMATS = ("NHWC", "NCHW")


def as_pairs(value: Any) -> Pairs:
    """(before, after) pairs of ints (pad widths, paddings, crops)."""
    return tuple((as_int(lo), as_int(hi)) for lo, hi in value)


def _as_ints(value: Any) -> tuple[int, ...]:
    return tuple(as_int(v) for v in value)


def _one_of(choices: tuple[str, ...], what: str) -> Any:
    def check(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"{what} must be one of {list(choices)}, got {value!r}")
        return value
    return check


def mirror_padded_shape(shape: Shape, paddings: Sequence[tuple[int, int]], mode: str,
                        op: str | None = None) -> tuple[int, ...]:
    """The shape of an input of `shape` mirror-padded by `paddings` (one (before, after) pair per
    axis); ShapeError naming `op` for a wrong number of pairs, a negative width, or one wider than
    the axis allows (TF's limit: below the size for 'reflect', up to it for 'symmetric')."""
    pairs = tuple(tuple(p) for p in paddings)
    if len(pairs) != len(shape):
        raise ShapeError(f"{op_prefix(op)}paddings has {len(pairs)} pairs for a {len(shape)}-d input; "
                         "give one (before, after) pair per axis.")
    limit = 1 if mode == "reflect" else 0
    for axis, (d, (lo, hi)) in enumerate(zip(shape, pairs)):
        if lo < 0 or hi < 0:
            raise ShapeError(f"{op_prefix(op)}pad widths must be >= 0, got {pairs}.")
        if max(lo, hi) > d - limit:
            most = f"{d - limit}" if d - limit >= 0 else "0 (the axis is empty)"
            raise ShapeError(f"{op_prefix(op)}axis {axis} has size {d}, so mode '{mode}' pads it by at "
                             f"most {most} on each side; got {(lo, hi)}. Pad less, or pad in steps.")
    return tuple(d + lo + hi for d, (lo, hi) in zip(shape, pairs))


def _mirror_pad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(mirror_padded_shape(x.shape, attrs["paddings"], attrs["mode"]), x.dtype)]


MIRROR_PAD = declare_spec(KernelSpec(
    name="MirrorPad", inputs=("x",), infer=_mirror_pad_rule,
    attrs=(AttrSpec("paddings", validate=as_pairs, doc="one (before, after) pair per axis"),
           AttrSpec("mode", validate=_one_of(MIRROR_MODES, "mode"),
                    doc="'reflect' (edge not repeated) or 'symmetric' (edge repeated)")),
    doc="x padded with its own mirror image along each axis (np.pad's 'reflect' / 'symmetric')",
))


def _blocks(shape: Shape, block_shape: Sequence[int], pairs: Sequence[tuple[int, int]], what: str,
            op: str | None) -> int:
    """Checks common to SpaceToBatchND and BatchToSpaceND; returns the number of spatial axes."""
    m = len(block_shape)
    if m < 1 or len(shape) < m + 1:
        raise ShapeError(f"{op_prefix(op)}x of shape {tuple(shape)} needs a batch axis and {m} spatial "
                         f"axes (one per block size in {tuple(block_shape)}); give at least one block "
                         "size and at most ndim - 1.")
    if any(b < 1 for b in block_shape):
        raise ShapeError(f"{op_prefix(op)}block sizes must be >= 1, got {tuple(block_shape)}.")
    if len(pairs) != m or any(lo < 0 or hi < 0 for lo, hi in pairs):
        raise ShapeError(f"{op_prefix(op)}{what} {tuple(tuple(p) for p in pairs)} must be {m} "
                         "(before, after) pairs of widths >= 0, one per block size.")
    return m


def space_to_batch_shape(shape: Shape, block_shape: Sequence[int], paddings: Sequence[tuple[int, int]],
                         op: str | None = None) -> tuple[int, ...]:
    """The output shape of SpaceToBatchND; ShapeError naming `op` unless each padded spatial
    size divides by its block size."""
    m = _blocks(shape, block_shape, paddings, "paddings", op)
    spatial = []
    for i, (b, (lo, hi)) in enumerate(zip(block_shape, paddings)):
        size = shape[i + 1] + lo + hi
        if size % b:
            raise ShapeError(f"{op_prefix(op)}spatial axis {i + 1} padded to {size} does not divide by "
                             f"its block size {b}; choose paddings that make it a multiple of {b}.")
        spatial.append(size // b)
    return (shape[0] * math.prod(block_shape), *spatial, *shape[m + 1:])


def batch_to_space_shape(shape: Shape, block_shape: Sequence[int], crops: Sequence[tuple[int, int]],
                         op: str | None = None) -> tuple[int, ...]:
    """The output shape of BatchToSpaceND; ShapeError naming `op` unless the batch divides by
    the blocks' product and the crops leave each spatial axis a size >= 0."""
    m = _blocks(shape, block_shape, crops, "crops", op)
    blocks = math.prod(block_shape)
    if shape[0] % blocks:
        raise ShapeError(f"{op_prefix(op)}the batch size {shape[0]} does not divide by the product of "
                         f"the block sizes {tuple(block_shape)} ({blocks}).")
    spatial = []
    for i, (b, (lo, hi)) in enumerate(zip(block_shape, crops)):
        size = shape[i + 1] * b - lo - hi
        if size < 0:
            raise ShapeError(f"{op_prefix(op)}crops {(lo, hi)} exceed spatial axis {i + 1} of size "
                             f"{shape[i + 1] * b} (after the blocks); crop less.")
        spatial.append(size)
    return (shape[0] // blocks, *spatial, *shape[m + 1:])


def _space_to_batch_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(space_to_batch_shape(x.shape, attrs["block_shape"], attrs["paddings"]), x.dtype)]


def _batch_to_space_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(batch_to_space_shape(x.shape, attrs["block_shape"], attrs["crops"]), x.dtype)]


SPACE_TO_BATCH_ND = declare_spec(KernelSpec(
    name="SpaceToBatchND", inputs=("x",), infer=_space_to_batch_rule,
    attrs=(AttrSpec("block_shape", validate=_as_ints, doc="the block size of each spatial axis"),
           AttrSpec("paddings", validate=as_pairs, doc="zeros before and after each spatial axis")),
    doc="x (batch, *spatial, *rest) zero-padded, its spatial axes cut in blocks whose offsets go "
        "to the batch axis (offset-major)",
))
BATCH_TO_SPACE_ND = declare_spec(KernelSpec(
    name="BatchToSpaceND", inputs=("x",), infer=_batch_to_space_rule,
    attrs=(AttrSpec("block_shape", validate=_as_ints, doc="the block size of each spatial axis"),
           AttrSpec("crops", validate=as_pairs, doc="what to cut before and after each spatial axis")),
    doc="SpaceToBatchND undone: batch blocks put back into the spatial axes, then cropped",
))


def _channels(shape: Shape, data_format: str, op: str | None) -> tuple[int, int, int, int]:
    if len(shape) != 4:
        raise ShapeError(f"{op_prefix(op)}x must be 4-d ({data_format}), got shape {tuple(shape)}.")
    n, a, b, c = shape
    return (n, a, b, c) if data_format == "NHWC" else (n, b, c, a)


def _block(block_size: int, op: str | None) -> int:
    if block_size < 1:
        raise ShapeError(f"{op_prefix(op)}block_size must be >= 1, got {block_size}.")
    return block_size


def _layout(n: int, h: int, w: int, c: int, data_format: str) -> tuple[int, ...]:
    return (n, h, w, c) if data_format == "NHWC" else (n, c, h, w)


def depth_to_space_shape(shape: Shape, block_size: int, data_format: str = "NHWC",
                         op: str | None = None) -> tuple[int, ...]:
    """The output shape of DepthToSpace; ShapeError naming `op` unless x is 4-d with channels
    divisible by block_size ** 2."""
    n, h, w, c = _channels(shape, data_format, op)
    b = _block(block_size, op)
    if c % (b * b):
        raise ShapeError(f"{op_prefix(op)}the {c} channels do not divide by block_size ** 2 = {b * b}.")
    return _layout(n, h * b, w * b, c // (b * b), data_format)


def space_to_depth_shape(shape: Shape, block_size: int, data_format: str = "NHWC",
                         op: str | None = None) -> tuple[int, ...]:
    """The output shape of SpaceToDepth; ShapeError naming `op` unless x is 4-d with height and
    width divisible by block_size."""
    n, h, w, c = _channels(shape, data_format, op)
    b = _block(block_size, op)
    if h % b or w % b:
        raise ShapeError(f"{op_prefix(op)}height {h} and width {w} must divide by block_size {b}.")
    return _layout(n, h // b, w // b, c * b * b, data_format)


def _depth_to_space_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(depth_to_space_shape(x.shape, attrs["block_size"], attrs["data_format"]), x.dtype)]


def _space_to_depth_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(space_to_depth_shape(x.shape, attrs["block_size"], attrs["data_format"]), x.dtype)]


_DEPTH_ATTRS = (AttrSpec("block_size", validate=as_int, doc="the side of each block (>= 1; TF's 2)"),
                AttrSpec("data_format", "NHWC", _one_of(DATA_FORMATS, "data_format"),
                         doc="'NHWC' (channels last) or 'NCHW' (channels first)"))

DEPTH_TO_SPACE = declare_spec(KernelSpec(
    name="DepthToSpace", inputs=("x",), infer=_depth_to_space_rule, attrs=_DEPTH_ATTRS,
    doc="channels moved into block_size x block_size spatial blocks (channels read as "
        "(block_row, block_col, channel))",
))
SPACE_TO_DEPTH = declare_spec(KernelSpec(
    name="SpaceToDepth", inputs=("x",), infer=_space_to_depth_rule, attrs=_DEPTH_ATTRS,
    doc="DepthToSpace undone: each block_size x block_size spatial block moved into the channels",
))
