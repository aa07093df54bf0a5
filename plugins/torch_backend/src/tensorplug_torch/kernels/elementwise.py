"""Elementwise arithmetic on torch tensors (a start: the binary operators)."""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["KERNELS"]


def _binary(op: Any) -> Any:
    def kernel(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
        x, y = inputs
        return op(x, y)

    return kernel


KERNELS = {
    "Add": _binary(torch.add),
    "Subtract": _binary(torch.sub),
    "Multiply": _binary(torch.mul),
}
