"""Reference values of Einsum: np.einsum without optimization (in float64 / complex128 for
inexact operands), on equations of one to three operands, broadcast letters and ellipses."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.dtypes import float32, float64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, accepted, sample
from tensorplug.testing.references._base import reference


def _einsum_cases(spec: KernelSpec) -> list[Case]:
    """A small matmul on every dtype; float64 (the gradient check's) on three small equations
    only, as each new equation and shape compiles anew on jax (tests/test_gradients_structure.py
    checks more); the others on float32."""
    matmul: tuple[str, list[tuple[int, ...]]] = ("ij,jk->ik", [(2, 3), (3, 2)])
    rows: list[tuple[Any, str, list[tuple[int, ...]]]] = [
        (d, *matmul) for d in accepted(spec, "operands") if d is not float64]
    rows += [
        (float64, *matmul), (float64, "iij->j", [(2, 2, 3)]), (float64, "ij,jk", [(1, 1), (1, 1)]),
        (float32, "bij,bjk,k->bi", [(2, 2, 3), (2, 3, 2), (2,)]), (float32, "...j,j->...", [(1, 3, 4), (4,)]),
        (float32, "ij,ij->ij", [(1, 3), (2, 3)]), (float32, "ii->i", [(3, 3)]),
        (float32, "i,i->", [(0,), (0,)]), (float32, "->", [()]),
    ]
    return [Case(tuple(sample(s, d, key=("Einsum", i, k)) for k, s in enumerate(shapes)),
                 {"equation": equation}) for i, (d, equation, shapes) in enumerate(rows)]


def _einsum_bad(spec: KernelSpec) -> list[BadCase]:
    a, b = sample((2, 3), float32), sample((4, 3), float32)
    return [BadCase((a, b), {"equation": "ij,jk->ik"}, error=ShapeError, why="sizes that differ"),
            BadCase((a,), {"equation": "ij,jk->ik"}, error=ShapeError, why="two terms for one operand"),
            BadCase((a,), {"equation": "ij->ii"}, error=ShapeError, why="a repeated output letter"),
            BadCase((a,), {"equation": "i->i"}, error=ShapeError, why="a term of the wrong rank")]


@reference("Einsum", _einsum_cases, _einsum_bad)
def _einsum(*operands: np.ndarray, equation: str) -> Any:
    return np.einsum(equation, *operands)
