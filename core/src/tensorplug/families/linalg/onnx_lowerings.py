"""ONNX lowering of MatMul: ONNX ``MatMul``, after a ``Transpose`` of the last two axes of an
operand the call transposes."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["matmul", "lower_matmul"]


def _swap_last(ctx: LoweringContext, x: str, rank: int) -> str:
    if rank < 2:
        return x
    return ctx.node("Transpose", [x], perm=[*range(rank - 2), rank - 1, rank - 2])


def matmul(ctx: LoweringContext, a: str, b: str, transpose_a: bool, transpose_b: bool,
           out: str | None = None) -> str:
    """ONNX ``MatMul`` of the call's first two inputs `a`, `b` (each transposed when asked)."""
    if transpose_a:
        a = _swap_last(ctx, a, len(ctx.input_infos[0].shape))
    if transpose_b:
        b = _swap_last(ctx, b, len(ctx.input_infos[1].shape))
    return ctx.node("MatMul", [a, b], out)


@lowering("MatMul")
def lower_matmul(ctx: LoweringContext) -> None:
    matmul(ctx, ctx.inputs[0], ctx.inputs[1], bool(ctx.attrs.get("transpose_x")),
           bool(ctx.attrs.get("transpose_y")), ctx.out)
