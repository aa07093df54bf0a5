"""The Einsum kernel, in the operands' dtype: ``np.einsum`` with ``optimize=True`` (the
contraction order numpy finds best, through BLAS) when a subscript is summed; numpy's own loop
when none is (outer and elementwise products, which BLAS does not serve: planning would only
add to them, 2-3x on a batch of outer products) and the dtype is numpy's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug_numpy.kernels._kernel import Kernel


def _sums(equation: str) -> bool:
    """Whether the equation sums a subscript (one of the inputs' that the output lacks)."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    if not arrow:  # implicit output: the subscripts seen once
        return any(lhs.count(c) > 1 for c in set(lhs) if c.isalpha())
    return any(c not in rhs for c in lhs if c.isalpha())


def einsum(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    equation = attrs["equation"]
    own_loop = inputs[0].dtype.isbuiltin == 1 and not _sums(equation)  # (its loop lacks ml_dtypes' types)
    return np.asarray(np.einsum(equation, *inputs, optimize=not own_loop), dtype=inputs[0].dtype)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {"Einsum": einsum}
