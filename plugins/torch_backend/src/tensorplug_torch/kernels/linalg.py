"""Linear-algebra kernels: MatMul (batched; leading axes broadcast; either input transposed by
attribute, as a view: ``Tensor.mm`` and ``torch.matmul`` read it strided, nothing is copied)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

from tensorplug.dtypes import ALL_DTYPES, bool_
from tensorplug.extend import DirectCall
from tensorplug_torch.kernels._kernel import Kernel

__all__ = ["KERNELS", "PRODUCTS"]

_matmul, _mm = torch.matmul, torch.Tensor.mm


def _plain(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x @ y. For two matrices, Tensor.mm: the product torch.matmul calls for them, without its
    dispatch over ranks (~10% of a tiny product); torch.matmul for batches. (torch.matmul would
    take 1-d inputs as vectors; the spec refuses them.)"""
    if x.ndim == 2 and y.ndim == 2:
        return _mm(x, y)
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError(f"MatMul needs inputs with at least 2 dimensions, got {tuple(x.shape)} and "
                         f"{tuple(y.shape)}")
    return _matmul(x, y)


def _transposed(transpose_x: bool, transpose_y: bool) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """x @ y with either transposed (a view)."""

    def product(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return _plain(x.mT if transpose_x else x, y.mT if transpose_y else y)

    return product


#: (transpose_x, transpose_y) -> the product function (also FusedMatMul's)
PRODUCTS = {(tx, ty): _transposed(tx, ty) for tx in (False, True) for ty in (False, True)}
PRODUCTS[False, False] = _plain


def matmul(inputs: tuple[torch.Tensor, ...], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x, y = inputs
    return PRODUCTS[attrs["transpose_x"], attrs["transpose_y"]](x, y)


def _direct(attrs: Mapping[str, Any]) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """The product for these attributes, called by the dispatcher without the kernel's layer."""
    return PRODUCTS[attrs["transpose_x"], attrs["transpose_y"]]


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "MatMul": Kernel(matmul, DirectCall([d for d in ALL_DTYPES if d is not bool_], specialize=_direct)),
}
