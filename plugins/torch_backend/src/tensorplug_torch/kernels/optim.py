"""Optimizer-update kernels: AdamUpdate in torch's fused arithmetic calls (``addcmul_``,
``addcdiv``), each writing a fresh tensor or one the kernel made. Its scalars are 0-d tensors
(step_size and epsilon_hat come as such; beta1, 1 - beta1 and beta2 are made once per value,
dtype and device): torch multiplies by a 0-d tensor in half the time it takes for a Python
number. torch computes half floats' arithmetic in float32 and rounds once, so their results may
differ from the numpy backend's (which rounds each step) in the last bit."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]


def adam_update(inputs: list[torch.Tensor], attrs: dict[str, Any],
                backend: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    param, grad, m, v, step_size, epsilon_hat = inputs
    beta1, beta2 = attrs["beta1"], attrs["beta2"]
    b1, one_minus_b1, b2 = _rates(param.dtype, param.device, beta1, beta2)
    m_new = torch.mul(m, b1).addcmul_(grad, one_minus_b1)
    v_new = torch.mul(v, b2).addcmul_(grad, grad, value=1.0 - beta2)
    denom = torch.sqrt(v_new).add_(epsilon_hat)
    return torch.addcdiv(param, torch.mul(m_new, step_size), denom, value=-1.0), m_new, v_new


@functools.lru_cache(maxsize=64)
def _rates(dtype: torch.dtype, device: torch.device, beta1: float,
           beta2: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """beta1, 1 - beta1 (in Python's float, then rounded once) and beta2 as 0-d tensors
    (never written, so shared safely)."""
    return (torch.tensor(beta1, dtype=dtype, device=device),
            torch.tensor(1.0 - beta1, dtype=dtype, device=device),
            torch.tensor(beta2, dtype=dtype, device=device))


KERNELS: dict[str, Callable[..., Any]] = {
    "AdamUpdate": adam_update,
}
