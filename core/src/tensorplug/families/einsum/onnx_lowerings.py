"""ONNX lowering of Einsum: ONNX's ``Einsum`` with the same equation."""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering

__all__ = ["lower_einsum"]


@lowering("Einsum")
def lower_einsum(ctx: LoweringContext) -> None:
    equation = str(ctx.attrs["equation"])
    sizes: dict[str, set[int]] = {}
    for term, info in zip(equation.split("->")[0].split(","), ctx.input_infos):
        for label, size in zip(term.strip(), info.shape):
            sizes.setdefault(label, set()).add(size)
    if "..." not in equation and any(len(s) > 1 for s in sizes.values()):
        raise ctx.unsupported("ONNX's Einsum does not broadcast an axis of size 1 against a longer one")
    ctx.node("Einsum", ctx.inputs, ctx.out, equation=equation)
