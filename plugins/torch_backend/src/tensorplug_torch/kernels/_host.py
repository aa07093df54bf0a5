"""Host copies for the few kernels that compute on numpy: those whose output's length depends
on the values (non-max suppression, SparseFillEmptyRows) and those torch has no op for (TF's
point sampling), through ``tensorplug.kernel_helpers``' numpy arithmetic."""

from __future__ import annotations

import numpy as np
import torch

from tensorplug_torch.kernels._layouts import compute_dtype

__all__ = ["to_host", "from_host"]


def to_host(t: torch.Tensor) -> np.ndarray:
    """A numpy copy of `t` (float16 and bfloat16 as float32, which numpy computes them in)."""
    return t.detach().to("cpu", compute_dtype(t.dtype)).numpy()


def from_host(a: np.ndarray, like: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    """Host result `a` as a tensor on `like`'s device, of `dtype` (default: `like`'s)."""
    return torch.as_tensor(a).to(like.device, dtype or like.dtype)  # (as_tensor: 0-d stays 0-d)
