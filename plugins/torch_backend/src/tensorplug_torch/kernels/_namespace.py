"""``namespace(device)``: torch under the numpy names and signatures that the public kernel
helpers' rearrangements call with an array namespace ``xp`` (``kernel_helpers.band_part``,
``space_to_batch``, ...), so the torch kernels run those helpers instead of copies of them.
Only what the helpers call is here; arrays it creates are on `device`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import torch

__all__ = ["namespace", "padded"]


def padded(x: torch.Tensor, widths: Sequence[Sequence[int]], value: Any = 0) -> torch.Tensor:
    """x with (before, after) `widths` of `value` around each axis: a tensor of the padded shape
    filled with `value`, x written in (any dtype; torch's own pad takes fewer)."""
    shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, widths))
    out = torch.full(shape, value, dtype=x.dtype, device=x.device)
    out[tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, widths))] = x
    return out


class _Namespace:
    """The numpy-named functions over torch, creating on one device."""

    def __init__(self, device: torch.device) -> None:
        self.device = device

    reshape = staticmethod(torch.reshape)
    transpose = staticmethod(torch.permute)
    where = staticmethod(torch.where)

    @staticmethod
    def pad(x: torch.Tensor, widths: Sequence[Sequence[int]]) -> torch.Tensor:
        return padded(x, widths)

    def arange(self, n: int) -> torch.Tensor:
        return torch.arange(n, device=self.device)

    def ones(self, shape: Sequence[int], dtype: Any = None) -> torch.Tensor:
        return torch.ones(tuple(shape), dtype=_dtype(dtype), device=self.device)

    def zeros(self, shape: Sequence[int], dtype: Any = None) -> torch.Tensor:
        return torch.zeros(tuple(shape), dtype=_dtype(dtype), device=self.device)


def _dtype(dtype: Any) -> torch.dtype | None:
    """A dtype as the helpers pass it (Python's bool, or a torch dtype) as torch's."""
    return torch.bool if dtype is bool else dtype


@functools.cache
def namespace(device: torch.device) -> _Namespace:
    """The namespace creating on `device` (one per device)."""
    return _Namespace(device)
