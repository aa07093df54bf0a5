"""ONNX lowerings of the layout family: DepthToSpace and SpaceToDepth (ONNX's, channels-first;
TF's depth order is ONNX's "DCR" mode) and MirrorPad in 'reflect' mode (ONNX has no
'symmetric')."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, to_channels_first, to_channels_last

__all__ = ["lower_depth_space", "lower_mirror_pad"]


@lowering("DepthToSpace")
@lowering("SpaceToDepth")
def lower_depth_space(ctx: LoweringContext) -> None:
    channels_last = ctx.attrs.get("data_format", "NHWC") == "NHWC"
    extra = {"mode": "DCR"} if ctx.kernel == "DepthToSpace" else {}
    x = to_channels_first(ctx, ctx.inputs[0], 4) if channels_last else ctx.inputs[0]
    y = ctx.node(ctx.kernel, [x], None if channels_last else ctx.out, blocksize=int(ctx.attrs["block_size"]),
                 **extra)
    if channels_last:
        to_channels_last(ctx, y, 4, ctx.out)


@lowering("MirrorPad")
def lower_mirror_pad(ctx: LoweringContext) -> None:
    mode = str(ctx.attrs["mode"]).lower()
    if mode != "reflect":
        raise ctx.unsupported(f"ONNX's Pad has no '{mode}' mode (only 'reflect' of the kernel's modes)")
    pairs = ctx.attrs["paddings"]
    pads = [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]
    ctx.node("Pad", [ctx.inputs[0], ctx.ints(pads)], ctx.out, mode="reflect")


@lowering("SpaceToBatchND")
def lower_space_to_batch(ctx: LoweringContext) -> None:
    """TF's: the spatial axes padded, cut into blocks, the block offsets moved into the batch."""
    shape = list(ctx.input_infos[0].shape)
    block = [int(b) for b in ctx.attrs["block_shape"]]
    pads = [(int(lo), int(hi)) for lo, hi in ctx.attrs["paddings"]]
    m, rest = len(block), shape[1 + len(block):]
    padded = [n + lo + hi for n, (lo, hi) in zip(shape[1:1 + m], pads)]
    zeros = [0] * len(rest)
    all_pads = [0, *(lo for lo, _ in pads), *zeros, 0, *(hi for _, hi in pads), *zeros]
    x = ctx.node("Pad", [ctx.inputs[0], ctx.ints(all_pads)]) if any(all_pads) else ctx.inputs[0]
    split = [shape[0]] + [d for p, b in zip(padded, block) for d in (p // b, b)] + rest
    x = ctx.node("Reshape", [x, ctx.ints(split)])
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, len(split)))
    x = ctx.node("Transpose", [x], perm=perm)
    ctx.node("Reshape", [x, ctx.ints(list(ctx.output_infos[0].shape))], ctx.out)


@lowering("BatchToSpaceND")
def lower_batch_to_space(ctx: LoweringContext) -> None:
    """TF's: the batch split into block offsets, moved back between the spatial axes, cropped."""
    shape = list(ctx.input_infos[0].shape)
    block = [int(b) for b in ctx.attrs["block_shape"]]
    crops = [(int(lo), int(hi)) for lo, hi in ctx.attrs["crops"]]
    m = len(block)
    spatial, rest = shape[1:1 + m], shape[1 + m:]
    batch = shape[0] // max(int(np.prod(block)), 1)
    x = ctx.node("Reshape", [ctx.inputs[0], ctx.ints(block + [batch] + spatial + rest)])
    perm = [m] + [i for k in range(m) for i in (m + 1 + k, k)] + list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = ctx.node("Transpose", [x], perm=perm)
    full = [s * b for s, b in zip(spatial, block)]
    x = ctx.node("Reshape", [x, ctx.ints([batch] + full + rest)])
    if any(lo or hi for lo, hi in crops):
        ends = [n - hi for n, (_, hi) in zip(full, crops)]
        starts, axes = ctx.ints([lo for lo, _ in crops]), ctx.ints(list(range(1, 1 + m)))
        x = ctx.node("Slice", [x, starts, ctx.ints(ends), axes])
    ctx.node("Identity", [x], ctx.out)
