"""Batching rules of the linear-algebra kernels: MatMul (the batch becomes a leading batch
axis of the product, which broadcasts), Einsum (the batch gets a subscript of its own), and
the decompositions and solvers that take stacks of matrices (the batch axis first)."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from ..dispatch import Dispatcher, dispatcher_of
from ..ops.manipulation import reshape
from ..registry.batching import BatchConfig, register_batching_rule
from ..tensor import Tensor
from ._util import Axes, Inputs, aligned, all_batched, batching_rule, logical_rank, to_front

_MATMUL, _EINSUM = dispatcher_of("MatMul"), dispatcher_of("Einsum")


@batching_rule("MatMul")
def _matmul(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    rank = max(logical_rank(x, a) for x, a in zip(inputs, axes))
    return _MATMUL([aligned(x, a, rank) for x, a in zip(inputs, axes)], attrs), 0


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


for _name in ("Cholesky", "Det", "Inv", "Eigh", "Eigvalsh", "Qr", "Slogdet", "Svd", "Svdvals"):
    register_batching_rule(BatchConfig(_name, _stacked(dispatcher_of(_name))))

_SOLVE = dispatcher_of("Solve")


@batching_rule("Solve")
def _solve(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """The leading (stack) axes aligned as for MatMul; a 1-d `b` is a vector, made a
    one-column matrix for the solve and back."""
    (a, b), (aa, ab) = inputs, axes
    vector = logical_rank(b, ab) == 1
    if vector and ab is not None:
        b = to_front(b, ab)
        b, ab = reshape(b, b.shape + (1,)), 0
    elif vector:
        b = reshape(b, b.shape + (1,))
    rank = max(logical_rank(a, aa), b.ndim - (ab is not None))
    out = _SOLVE((aligned(a, aa, rank), aligned(b, ab, rank)), attrs)
    return (reshape(out, out.shape[:-1]) if vector else out), 0
