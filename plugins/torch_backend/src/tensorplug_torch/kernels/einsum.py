"""The Einsum kernel, in the operands' dtype: ``torch.einsum`` (which contracts through BLAS and,
with opt_einsum installed, in the order it finds best)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]


def einsum(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    return torch.einsum(attrs["equation"], *inputs)


KERNELS: dict[str, Callable[..., Any]] = {"Einsum": einsum}
