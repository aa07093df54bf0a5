"""Linear-algebra kernels: MatMul (batched; leading axes broadcast; either input transposed
by attribute, as a view: BLAS reads it transposed, nothing is copied).

MatMul leaves numpy's floating-point warnings on, as plain arithmetic does (see ``_quiet``): a
sum of products gives inf or nan only by overflow or from inf and nan inputs. Its direct calls
are the product functions themselves (ndarray.dot for two matrices, np.matmul for batches).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug.dtypes import NUMERIC_DTYPES
from tensorplug.extend import DirectCall
from tensorplug_numpy.kernels._kernel import Kernel

_matmul, _dot = np.matmul, np.ndarray.dot  # (ndarray.dot: np.dot without its __array_function__ dispatch)


def _refuse(x: Any, y: Any) -> None:
    raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {x.shape} and {y.shape}")


def _plain(x: Any, y: Any) -> Any:
    """x @ y. For two matrices, ndarray.dot (np.dot's function): numpy's direct BLAS call, at a
    third of np.matmul's cost on small inputs, where matmul's general machinery dominates (for
    contiguous and transposed matrices it is the same BLAS call, so the same values; other
    strided views are laid out for BLAS differently, which may move the last bits); np.matmul
    for batches, which dot would not broadcast. (np.matmul would take 1-d inputs as vectors;
    the spec refuses them.)"""
    if x.ndim == 2 and y.ndim == 2:
        return _dot(x, y)
    if x.ndim < 2 or y.ndim < 2:
        _refuse(x, y)
    out = _matmul(x, y)
    return out if out.dtype == x.dtype else out.astype(x.dtype)  # (bfloat16: ml_dtypes gives float32)


def _transposed(transpose_x: bool, transpose_y: bool) -> Callable[[Any, Any], Any]:
    """x @ y with either transposed (a view)."""

    def product(x: Any, y: Any) -> Any:
        return _plain(x.swapaxes(-1, -2) if transpose_x else x, y.swapaxes(-1, -2) if transpose_y else y)

    return product


_PRODUCTS = {(tx, ty): _transposed(tx, ty) for tx in (False, True) for ty in (False, True)}
_PRODUCTS[False, False] = _plain


def _specialize(attrs: Mapping[str, Any]) -> Callable[[Any, Any], Any]:
    return _PRODUCTS[attrs["transpose_x"], attrs["transpose_y"]]


def matmul(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x, y = inputs
    return _specialize(attrs)(x, y)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "MatMul": Kernel(matmul, DirectCall(NUMERIC_DTYPES, specialize=_specialize), handles_warnings=True),
}
