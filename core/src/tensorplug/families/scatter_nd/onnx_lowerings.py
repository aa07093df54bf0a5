"""ONNX lowerings of the scatter_nd family: GatherNd (``GatherND``), ScatterNd (``ScatterND``
adding into zeros: repeated indices add up) and TensorScatterUpdate (``ScatterND``)."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["lower_gather_nd", "lower_scatter_nd", "lower_tensor_scatter_update"]


def _int64(ctx: LoweringContext, i: int) -> str:
    x = ctx.inputs[i]
    return x if ctx.np_dtype(i) == np.int64 else ctx.node("Cast", [x], to=elem_type(np.dtype(np.int64)))


@lowering("GatherNd")
def lower_gather_nd(ctx: LoweringContext) -> None:
    ctx.node("GatherND", [ctx.inputs[0], _int64(ctx, 1)], ctx.out)


@lowering("ScatterNd")
def lower_scatter_nd(ctx: LoweringContext) -> None:
    info = ctx.output_infos[0]
    zeros = ctx.constant(np.zeros(info.shape, ctx.np_dtype(1)))
    ctx.node("ScatterND", [zeros, _int64(ctx, 0), ctx.inputs[1]], ctx.out, reduction="add")


@lowering("TensorScatterUpdate")
def lower_tensor_scatter_update(ctx: LoweringContext) -> None:
    ctx.node("ScatterND", [ctx.inputs[0], _int64(ctx, 1), ctx.inputs[2]], ctx.out)
