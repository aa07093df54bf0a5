"""Linear-algebra kernels: MatMul (batched; leading axes broadcast; either input transposed
by attribute, as a view: BLAS reads it transposed, nothing is copied)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug.dtypes import NUMERIC_DTYPES
from tensorplug.extend import DirectCall

from .._quiet import quieted
from ._kernel import Kernel


def _product(transpose_x: bool, transpose_y: bool) -> Callable[[Any, Any], Any]:
    """x @ y with either transposed (a view), floating-point warnings off."""

    def product(x: Any, y: Any) -> Any:
        if x.ndim < 2 or y.ndim < 2:  # np.matmul would treat 1-d inputs as vectors; the spec refuses
            raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {x.shape} and {y.shape}")
        return np.matmul(x.swapaxes(-1, -2) if transpose_x else x, y.swapaxes(-1, -2) if transpose_y else y)

    return quieted(product, arity=2)


_PRODUCTS = {(tx, ty): _product(tx, ty) for tx in (False, True) for ty in (False, True)}


def _specialize(attrs: Mapping[str, Any]) -> Callable[[Any, Any], Any]:
    return _PRODUCTS[attrs["transpose_x"], attrs["transpose_y"]]


def matmul(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, y = inputs
    return _specialize(attrs)(x, y)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "MatMul": Kernel(matmul, DirectCall(NUMERIC_DTYPES, specialize=_specialize), handles_warnings=True),
}
