"""ONNX lowerings of the pooling family: MaxPool and AvgPool (2-d and 3-d) as ONNX ``MaxPool``
and ``AveragePool`` (channels-first; padding not counted in averages, as TF counts), with a
``Transpose`` on each side for channels-last data."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, onnx_pads, to_channels_first, to_channels_last

__all__ = ["lower_pool"]

_OPS = {"MaxPool": "MaxPool", "MaxPool3D": "MaxPool", "AvgPool": "AveragePool", "AvgPool3D": "AveragePool"}


@lowering("MaxPool")
@lowering("MaxPool3D")
@lowering("AvgPool")
@lowering("AvgPool3D")
def lower_pool(ctx: LoweringContext) -> None:
    rank = len(ctx.input_infos[0].shape)
    channels_last = ctx.attrs.get("data_format", "channels_last") == "channels_last"
    x = to_channels_first(ctx, ctx.inputs[0], rank) if channels_last else ctx.inputs[0]
    extra = {"count_include_pad": 0} if _OPS[ctx.kernel] == "AveragePool" else {}
    y = ctx.node(_OPS[ctx.kernel], [x], None if channels_last else ctx.out,
                 kernel_shape=[int(k) for k in ctx.attrs["filter_size"]],
                 strides=[int(s) for s in ctx.attrs["strides"]], pads=onnx_pads(ctx.attrs["pad"]), **extra)
    if channels_last:
        to_channels_last(ctx, y, rank, ctx.out)

