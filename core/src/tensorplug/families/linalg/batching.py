"""Batching rules of the linear-algebra kernels: MatMul (the batch becomes a leading batch
axis of the product, which broadcasts), Einsum (the batch gets a subscript of its own), and
the decompositions and solvers that take stacks of matrices (the batch axis first)."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    aligned,
    all_batched,
    batching_rule,
    logical_rank,
    reshaped,
    to_front,
    transposed,
)
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.batching import BatchConfig
from tensorplug.registry.core_entries import declare_batching_rule

_MATMUL, _EINSUM = dispatcher_of("MatMul"), dispatcher_of("Einsum")


@batching_rule("MatMul")
def _matmul(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """One product of matrices for the whole batch where the layout allows it (the batch
    folded into the rows of x, or into the columns of y), a batch of outer products as one
    Einsum (a broadcast multiplication if stacks broadcast); else a stack of products, the
    batch a leading axis that broadcasts."""
    (x, y), (ax, ay) = inputs, axes
    tx, ty = attrs["transpose_x"], attrs["transpose_y"]
    if ay is None and y.ndim == 2 and not tx:  # fold the batch (and x's stack) into x's rows
        x = to_front(x, ax)
        out = _MATMUL((reshaped(x, (-1, x.shape[-1])), y), attrs)
        return reshaped(out, x.shape[:-1] + out.shape[-1:]), 0
    if ax is None and x.ndim == 2 and logical_rank(y, ay) == 2 and not ty:  # into y's columns
        y = y if ay == 1 else transposed(y, (1, 0, 2) if ay == 0 else (0, 2, 1))  # (k, B, n)
        out = _MATMUL((x, reshaped(y, (y.shape[0], -1))), attrs)
        return reshaped(out, out.shape[:1] + y.shape[1:]), 1
    rank = max(logical_rank(x, ax), logical_rank(y, ay))
    x, y = aligned(x, ax, rank), aligned(y, ay, rank)
    if x.shape[-2 if tx else -1] == 1 and ax is not None and ay is not None:  # outer products
        m, n = x.shape[-1 if tx else -2], y.shape[-2 if ty else -1]
        if x.ndim == 3 and y.ndim == 3 and x.shape[0] == y.shape[0]:  # (a per-example gradient's)
            size = x.shape[0]
            return _EINSUM((reshaped(x, (size, m)), reshaped(y, (size, n))), {"equation": "bi,bj->bij"}), 0
        return reshaped(x, x.shape[:-2] + (m, 1)) * reshaped(y, y.shape[:-2] + (1, n)), 0
    return _MATMUL((x, y), attrs), 0


@batching_rule("Einsum")
def _einsum(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    equation = attrs["equation"].replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if not arrow:  # implicit output: the subscripts seen once, in alphabetical order
        rhs = "".join(sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1))
    free = next(c for c in string.ascii_letters if c not in equation)
    operands, new_terms = [], []
    for x, a, term in zip(inputs, axes, terms):
        if a is None:
            operands.append(x)
            new_terms.append(term)
        else:
            operands.append(to_front(x, a))
            new_terms.append(free + term)
    return _EINSUM(operands, {"equation": f"{','.join(new_terms)}->{free}{rhs}"}), 0


def _stacked(dispatcher: Dispatcher) -> Any:
    """Kernels over the last axes of a stack of matrices: batch axis first (every input)."""
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Any, int]:
        if len(inputs) == 1:
            return dispatcher((to_front(inputs[0], axes[0]),), attrs), 0
        return dispatcher(all_batched(inputs, axes), attrs), 0
    return rule


for _name in ("Cholesky", "Det", "Inv", "Eig", "Eigh", "Eigvals", "Eigvalsh", "Qr", "Slogdet", "Svd",
              "Svdvals"):
    declare_batching_rule(BatchConfig(_name, _stacked(dispatcher_of(_name))))

_SOLVE = dispatcher_of("Solve")


@batching_rule("Solve")
def _solve(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """The leading (stack) axes aligned as for MatMul; a 1-d `b` is a vector, made a
    one-column matrix for the solve and back."""
    (a, b), (aa, ab) = inputs, axes
    vector = logical_rank(b, ab) == 1
    if vector and ab is not None:
        b = to_front(b, ab)
        b, ab = reshaped(b, b.shape + (1,)), 0
    elif vector:
        b = reshaped(b, b.shape + (1,))
    rank = max(logical_rank(a, aa), b.ndim - (ab is not None))
    out = _SOLVE((aligned(a, aa, rank), aligned(b, ab, rank)), attrs)
    return (reshaped(out, out.shape[:-1]) if vector else out), 0
