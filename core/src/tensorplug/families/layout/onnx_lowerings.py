"""ONNX lowerings of the layout family: DepthToSpace and SpaceToDepth (ONNX's, channels-first;
TF's depth order is ONNX's "DCR" mode) and MirrorPad in 'reflect' mode (ONNX has no
'symmetric')."""

from __future__ import annotations

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
