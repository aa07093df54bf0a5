"""ONNX lowerings of the solvers and factorizations ONNX has no operator for, written out step by
step over the matrix size (fixed at export), in float64 and cast once: Solve and Inv (Gauss-Jordan
elimination with partial pivoting, the first largest pivot as LAPACK's LU takes it; NaN for a
matrix with an exact zero pivot, as the kernels give), Cholesky (column by column from the lower
triangle; NaN for a matrix that is not positive definite) and Qr (Householder reflections with
LAPACK's signs, ``dlarfg``'s: R's diagonal is -sign(a) * norm, or a itself where the column below
is zero). Batch axes broadcast through each operator, so a dynamic batch axis stays dynamic."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.onnx_util import lowering
from tensorplug.families.elementwise.onnx_lowerings import elem_type

__all__ = ["Wide", "lower_solve", "lower_inv", "lower_cholesky", "lower_qr"]

_F64 = np.dtype(np.float64)


class Wide:
    """float64 arithmetic on (..., rows, cols) values: constants, slices, and the few operators."""

    def __init__(self, ctx: LoweringContext) -> None:
        self.ctx = ctx

    def c(self, value: object) -> str:
        return self.ctx.constant(value, _F64)

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        return self.ctx.node(op_type, list(inputs), **attributes)

    def wide(self, x: str) -> str:
        return self.op("Cast", x, to=elem_type(_F64))

    def rows(self, x: str, start: int, stop: int) -> str:
        return self.op("Slice", x, self.ctx.ints([start]), self.ctx.ints([stop]), self.ctx.ints([-2]))

    def cols(self, x: str, start: int, stop: int) -> str:
        return self.op("Slice", x, self.ctx.ints([start]), self.ctx.ints([stop]), self.ctx.ints([-1]))

    def swap(self, x: str, rank: int) -> str:
        """`x` with its last two axes swapped."""
        return self.op("Transpose", x, perm=[*range(rank - 2), rank - 1, rank - 2])

    def nan_where(self, bad: str, x: str) -> str:
        """`x` with its matrices NaN where `bad` (..., 1, 1) holds."""
        return self.op("Where", bad, self.c(np.nan), x)

    def out(self, x: str, i: int = 0) -> None:
        """Cast `x` to output `i`'s dtype, into it."""
        self.ctx.node("Cast", [x], self.ctx.outputs[i], to=elem_type(self.ctx.np_dtype(i, output=True)))


def _gauss_jordan(w: Wide, a: str, b: str, m: int) -> str:
    """X with A X = B, A (..., m, m) and B (..., m, k) in float64, NaN where A has an exact zero
    pivot."""
    rows = np.arange(m)
    bad = None
    for j in range(m):
        column = w.op("Abs", w.op("Squeeze", w.cols(a, j, j + 1), w.ctx.ints([-1])))  # (..., m)
        candidates = w.op("Where", w.ctx.constant(rows >= j), column, w.c(-1.0))
        p = w.op("ArgMax", candidates, axis=-1, keepdims=1)  # (..., 1): the first largest
        at_j = w.ctx.constant(rows == j)
        index = w.ctx.constant(rows, np.int64)
        perm = w.op("Where", at_j, p, w.op("Where", w.op("Equal", index, p), w.ctx.ints(j), index))
        column_index = w.ctx.constant(rows[None, :], np.int64)
        swap = w.wide(w.op("Equal", w.op("Unsqueeze", perm, w.ctx.ints([-1])), column_index))
        a, b = w.op("MatMul", swap, a), w.op("MatMul", swap, b)
        pivot = w.cols(w.rows(a, j, j + 1), j, j + 1)  # (..., 1, 1)
        zero = w.op("Equal", pivot, w.c(0.0))
        bad = zero if bad is None else w.op("Or", bad, zero)
        factors = w.op("Mul", w.cols(a, j, j + 1), w.c((rows != j).astype(np.float64)[:, None]))
        row_j = w.ctx.constant((rows == j)[:, None])
        for name in ("a", "b"):
            x = a if name == "a" else b
            scaled = w.op("Div", w.rows(x, j, j + 1), pivot)
            x = w.op("Where", row_j, scaled, w.op("Sub", x, w.op("Mul", factors, scaled)))
            a, b = (x, b) if name == "a" else (a, x)
    return b if bad is None else w.nan_where(bad, b)


@lowering("Solve")
def lower_solve(ctx: LoweringContext) -> None:
    w = Wide(ctx)
    m = ctx.input_infos[0].shape[-1]
    w.out(_gauss_jordan(w, w.wide(ctx.inputs[0]), w.wide(ctx.inputs[1]), m))


@lowering("Inv")
def lower_inv(ctx: LoweringContext) -> None:
    w = Wide(ctx)
    m = ctx.input_infos[0].shape[-1]
    w.out(_gauss_jordan(w, w.wide(ctx.inputs[0]), w.c(np.eye(m)), m))


@lowering("Cholesky")
def lower_cholesky(ctx: LoweringContext) -> None:
    """L column by column: column j is (A[:, j] - L L[j, :]^T) / sqrt(its j-th value), rows >= j."""
    w = Wide(ctx)
    rank, n = len(ctx.input_infos[0].shape), ctx.input_infos[0].shape[-1]
    a = w.wide(ctx.inputs[0])
    low = w.op("Mul", a, w.c(np.zeros((n, n))))  # (zeros of the batch's shape)
    bad = None
    for j in range(n):
        rest = w.op("MatMul", low, w.swap(w.rows(low, j, j + 1), rank))
        column = w.op("Sub", w.cols(a, j, j + 1), rest)  # (..., n, 1)
        d = w.rows(column, j, j + 1)
        not_pd = w.op("Not", w.op("Greater", d, w.c(0.0)))
        bad = not_pd if bad is None else w.op("Or", bad, not_pd)
        below = w.op("Mul", w.op("Div", column, w.op("Sqrt", d)), w.c((np.arange(n) >= j)[:, None] * 1.0))
        low = w.op("Add", low, w.op("Mul", below, w.c((np.arange(n) == j)[None, :] * 1.0)))
    w.out(low if bad is None else w.nan_where(bad, low))


@lowering("Qr")
def lower_qr(ctx: LoweringContext) -> None:
    """Householder QR as LAPACK's geqrf and orgqr: for each column k < min(M, N), the reflector
    H = I - tau v v^T of ``dlarfg`` (beta = -sign(alpha) * norm, v = x / (alpha - beta) below
    v[k] = 1, tau = (beta - alpha) / beta; tau = 0 where the column below alpha is zero) applied
    to R, and Q = H_0 H_1 ... (its first K columns in 'reduced' mode)."""
    w = Wide(ctx)
    rank = len(ctx.input_infos[0].shape)
    m, n = ctx.input_infos[0].shape[-2:]
    k_all = min(m, n)
    r = w.wide(ctx.inputs[0])
    q: str = w.c(np.eye(m))
    for k in range(k_all):
        x = w.rows(w.cols(r, k, k + 1), k, m)  # (..., m - k, 1)
        alpha = w.rows(x, 0, 1)
        below = w.rows(x, 1, m - k)
        xnorm2 = w.op("ReduceSum", w.op("Mul", below, below), w.ctx.ints([-2]), keepdims=1)
        norm = w.op("Sqrt", w.op("Add", w.op("Mul", alpha, alpha), xnorm2))
        sign = w.op("Where", w.op("Less", alpha, w.c(0.0)), w.c(-1.0), w.c(1.0))
        beta = w.op("Neg", w.op("Mul", sign, norm))
        plain = w.op("Equal", xnorm2, w.c(0.0))
        tau = w.op("Where", plain, w.c(0.0), w.op("Div", w.op("Sub", beta, alpha), beta))
        scale = w.op("Where", plain, w.c(1.0), w.op("Sub", alpha, beta))
        tail = w.op("Div", below, scale)
        parts = ([w.op("Mul", alpha, w.c(np.zeros((k, 1))))] if k else []) + [
            w.op("Add", w.op("Mul", alpha, w.c(0.0)), w.c(1.0)), tail]  # (batch-shaped zeros, 1, v)
        v = w.op("Concat", *parts, axis=-2)  # (..., m, 1)
        vt = w.swap(v, rank)
        tv = w.op("Mul", tau, v)
        r = w.op("Sub", r, w.op("MatMul", tv, w.op("MatMul", vt, r)))
        q = w.op("Sub", q, w.op("MatMul", w.op("MatMul", q, v), w.op("Mul", tau, vt)))
    upper = np.triu(np.ones((m, n)))
    r = w.op("Mul", r, w.c(upper))
    if ctx.attrs["mode"] == "reduced":
        q, r = w.cols(q, 0, k_all), w.rows(r, 0, k_all)
    if not k_all:  # (an empty matrix: Q is the identity (M, M) or (M, 0), of the batch's shape)
        q = w.op("Add", q, w.op("Mul", w.cols(w.rows(w.wide(ctx.inputs[0]), 0, 1), 0, 1), w.c(0.0)))
    w.out(q, 0)
    w.out(r, 1)
