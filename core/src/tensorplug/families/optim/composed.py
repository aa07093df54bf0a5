"""AdamUpdate's arithmetic written with ops: what ``tp.optimizers.Adam`` computes on a backend
without the kernel, and what the kernel's batching rule computes for per-example step values."""

from __future__ import annotations

from tensorplug.core.tensor import Tensor
from tensorplug.families.elementwise.ops import sqrt

__all__ = ["adam_update_from_ops"]


def adam_update_from_ops(param: Tensor, grad: Tensor, m: Tensor, v: Tensor, beta1: float, beta2: float,
                         step_size: Tensor, epsilon_hat: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The new (param, m, v), as the kernel AdamUpdate computes them (its spec's formula)."""
    m = m * beta1 + grad * (1.0 - beta1)
    v = v * beta2 + grad * grad * (1.0 - beta2)
    return param - m * step_size / (sqrt(v) + epsilon_hat), m, v
