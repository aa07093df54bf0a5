"""Optimizer-update kernels: AdamUpdate in torch's fused arithmetic calls (``add_`` with alpha,
``addcmul_``, ``addcdiv``; step_size and epsilon_hat are 0-d tensors, which ``value=`` does not
take), each writing a fresh tensor or one the kernel made. torch computes half floats'
arithmetic in float32 and rounds once, so their results may differ from the numpy backend's
(which rounds each step) in the last bit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]


def adam_update(inputs: list[torch.Tensor], attrs: dict[str, Any],
                backend: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    param, grad, m, v, step_size, epsilon_hat = inputs
    beta1, beta2 = attrs["beta1"], attrs["beta2"]
    m_new = torch.mul(m, beta1).add_(grad, alpha=1.0 - beta1)
    v_new = torch.mul(v, beta2).addcmul_(grad, grad, value=1.0 - beta2)
    denom = torch.sqrt(v_new).add_(epsilon_hat)
    return torch.addcdiv(param, torch.mul(m_new, step_size), denom, value=-1.0), m_new, v_new


KERNELS: dict[str, Callable[..., Any]] = {
    "AdamUpdate": adam_update,
}
