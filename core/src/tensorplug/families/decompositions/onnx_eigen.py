"""ONNX lowerings of Eigvalsh and Svdvals, written out over the matrix size (fixed at export) in
float64: cyclic Jacobi rotations of the symmetric matrix (from its lower triangle, as LAPACK's
'L'), a fixed number of sweeps (``SWEEPS``: Jacobi converges quadratically, so that many leave
off-diagonal values far below float64's resolution for the sizes written out), its diagonal
sorted; the singular values are the square roots of the eigenvalues of the smaller Gram matrix
(A^T A or A A^T, in float64), descending. Matrices larger than ``MAX_SIZE`` are refused: their
written-out graphs grow as the square of the size."""

from __future__ import annotations

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.decompositions.onnx_solvers import Wide

__all__ = ["lower_eigvalsh", "lower_svdvals", "SWEEPS", "MAX_SIZE"]

#: Jacobi sweeps (each rotates every pair of rows and columns once)
SWEEPS = 8
#: the largest matrix size written out (8 sweeps of n (n - 1) / 2 rotations of ~20 nodes each)
MAX_SIZE = 24


def _jacobi_eigenvalues(w: Wide, a: str, n: int, rank: int) -> str:
    """The eigenvalues (..., n), in no order, of symmetric float64 matrices `a` (..., n, n)."""
    eye = np.eye(n)
    for _ in range(SWEEPS):
        for p in range(n - 1):
            for q in range(p + 1, n):
                def at(i: int, j: int, x: str = a) -> str:
                    return w.cols(w.rows(x, i, i + 1), j, j + 1)  # (..., 1, 1)

                app, aqq, apq = at(p, p), at(q, q), at(p, q)
                flat = w.op("Equal", apq, w.c(0.0))
                theta = w.op("Div", w.op("Sub", aqq, app), w.op("Mul", w.c(2.0),
                                                                 w.op("Where", flat, w.c(1.0), apq)))
                sign = w.op("Where", w.op("Less", theta, w.c(0.0)), w.c(-1.0), w.c(1.0))
                root = w.op("Sqrt", w.op("Add", w.op("Mul", theta, theta), w.c(1.0)))
                t = w.op("Div", sign, w.op("Add", w.op("Abs", theta), root))
                t = w.op("Where", flat, w.c(0.0), t)
                c = w.op("Div", w.c(1.0), w.op("Sqrt", w.op("Add", w.op("Mul", t, t), w.c(1.0))))
                s = w.op("Mul", t, c)
                diagonal = np.zeros((n, n))
                diagonal[p, p] = diagonal[q, q] = 1.0
                up, down = np.zeros((n, n)), np.zeros((n, n))
                up[p, q], down[q, p] = 1.0, 1.0
                rotation = w.op("Add", w.op("Add", w.c(eye - diagonal), w.op("Mul", c, w.c(diagonal))),
                                w.op("Mul", s, w.c(up - down)))  # J: x' = J^T x J
                a = w.op("MatMul", w.op("MatMul", w.swap(rotation, rank), a), rotation)
    return w.op("ReduceSum", w.op("Mul", a, w.c(eye)), w.ctx.ints([-1]), keepdims=0)


def _sorted(w: Wide, values: str, n: int, largest: bool) -> str:
    """`values` sorted along the last axis (descending if `largest`): ONNX's TopK of all `n`."""
    outs = [w.ctx.fresh("sorted"), w.ctx.fresh("order")]
    return w.ctx.node("TopK", [values, w.ctx.ints([n])], outs, axis=-1, largest=int(largest), sorted=1)


def _refuse_large(ctx: LoweringContext, n: int) -> None:
    if n > MAX_SIZE:
        raise ctx.unsupported(f"its matrices are {n} x {n}; the lowering writes the Jacobi iteration out and "
                              f"does so up to {MAX_SIZE} x {MAX_SIZE}")


@lowering("Eigvalsh")
def lower_eigvalsh(ctx: LoweringContext) -> None:
    w = Wide(ctx)
    rank, n = len(ctx.input_infos[0].shape), ctx.input_infos[0].shape[-1]
    _refuse_large(ctx, n)
    low = w.op("Trilu", w.wide(ctx.inputs[0]), upper=0)
    a = w.op("Add", low, w.swap(w.op("Trilu", low, w.ctx.ints(-1), upper=0), rank))
    values = _jacobi_eigenvalues(w, a, n, rank) if n else w.op("ReduceSum", a, w.ctx.ints([-1]), keepdims=0)
    if n > 1:
        values = _sorted(w, values, n, largest=False)
    w.out(values)


@lowering("Svdvals")
def lower_svdvals(ctx: LoweringContext) -> None:
    w = Wide(ctx)
    rank = len(ctx.input_infos[0].shape)
    m, n = ctx.input_infos[0].shape[-2:]
    k = min(m, n)
    _refuse_large(ctx, k)
    a = w.wide(ctx.inputs[0])
    gram = w.op("MatMul", w.swap(a, rank), a) if n <= m else w.op("MatMul", a, w.swap(a, rank))
    if k:
        values = _jacobi_eigenvalues(w, gram, k, rank)
    else:
        values = w.op("ReduceSum", gram, w.ctx.ints([-1]), keepdims=0)
    values = w.op("Sqrt", w.op("Max", values, w.c(0.0)))
    if k > 1:
        values = _sorted(w, values, k, largest=True)
    w.out(values)
