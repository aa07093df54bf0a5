"""Optimizer-update kernels: AdamUpdate, fused into one compiled function. The step size and
epsilon come as 0-d inputs; beta1 and beta2 are traced arguments too (static ones would compile
again for each optimizer's values)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tensorplug_jax.kernels._jit import with_attrs


def _adam_update(param: Any, grad: Any, m: Any, v: Any, step_size: Any, epsilon_hat: Any, beta1: Any,
                 beta2: Any) -> tuple[Any, Any, Any]:
    """The numpy backend's arithmetic, in the parameter's dtype and in the same order."""
    dt = param.dtype
    b1, b2 = jnp.asarray(beta1, dt), jnp.asarray(beta2, dt)
    m_new = m * b1 + grad * (1 - b1)
    v_new = grad * grad * (1 - b2) + v * b2
    step = m_new * step_size / (jnp.sqrt(v_new) + epsilon_hat)
    return param - step, m_new, v_new


KERNELS: dict[str, Callable[..., Any]] = {
    "AdamUpdate": with_attrs(_adam_update, traced=("beta1", "beta2")),
}
