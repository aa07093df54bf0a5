"""ONNX lowerings of the decompositions family's kernels ONNX has an operator for: Det, and
Slogdet from it. (Solve, Inv, Cholesky and Qr, written out step by step: ``onnx_solvers.py``;
Eigvalsh and Svdvals as Jacobi sweeps: ``onnx_eigen.py``; Svd, Eig, Eigh and Eigvals have none.)"""

from __future__ import annotations

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering, same_op

__all__ = ["lower_slogdet"]

same_op("Det", "Det")


@lowering("Slogdet")
def lower_slogdet(ctx: LoweringContext) -> None:
    """(sign, log |det|) from ONNX's Det (exact for the matrices whose determinant float holds)."""
    det = ctx.node("Det", ctx.inputs)
    ctx.node("Sign", [det], ctx.outputs[0])
    ctx.node("Log", [ctx.node("Abs", [det])], ctx.outputs[1])
