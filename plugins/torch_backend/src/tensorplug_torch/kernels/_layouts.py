"""Layouts between tensorplug and torch: tensorplug's convolutions and pools are channels-last
(NHWC, NDHWC) with HWIO filters; torch's are channels-first (NCHW) with OIHW filters. Moving the
channels of a contiguous channels-last tensor gives torch's ``channels_last`` memory format, which
its convolutions and pools read without a copy. Also the padding both families share."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F

__all__ = ["as_oihw", "compute_dtype", "pad_spatial", "to_first", "to_last"]


def to_first(x: torch.Tensor, channels_first: bool) -> torch.Tensor:
    """`x` with its channels right after the batch axis (a view)."""
    return x if channels_first else x.movedim(-1, 1)


def to_last(y: torch.Tensor, channels_first: bool) -> torch.Tensor:
    """Channels-first `y` back in the layout `channels_first` names (a view)."""
    return y if channels_first else y.movedim(1, -1)


def as_oihw(w: torch.Tensor) -> torch.Tensor:
    """An HWIO (DHWIO) filter as torch's (out, in / groups, *kernel) (a view)."""
    rank = w.ndim - 2
    return w.permute(rank + 1, rank, *range(rank))


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype to compute in: float32 for float16 and bfloat16 (as the numpy backend does:
    their sums of products lose too much), else `dtype`."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def pad_spatial(x: torch.Tensor, pads: Sequence[tuple[int, int]], value: float = 0.0) -> torch.Tensor:
    """Channels-first `x` with `value` added around its spatial dims, (low, high) per dim (a
    negative width crops)."""
    if not any(lo or hi for lo, hi in pads):
        return x
    flat = [w for lo, hi in reversed(pads) for w in (lo, hi)]  # (F.pad lists the last dim first)
    return F.pad(x, flat, value=value)
