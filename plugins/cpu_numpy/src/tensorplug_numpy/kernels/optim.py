"""Optimizer-update kernels: AdamUpdate, fused into a few ufunc calls on fresh arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def adam_update(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any, Any]:
    param, grad, m, v = inputs
    dtype = param.dtype
    b1, b2 = dtype.type(attrs["beta1"]), dtype.type(attrs["beta2"])
    # 1 - beta in Python's float, then rounded once: what Adam's ops compute (tp.jit plans them)
    m_new = np.multiply(m, b1)
    m_new += np.multiply(grad, dtype.type(1.0 - attrs["beta1"]))
    v_new = np.multiply(grad, grad)
    v_new *= dtype.type(1.0 - attrs["beta2"])
    v_new += np.multiply(v, b2)
    denom = np.sqrt(v_new)
    denom += dtype.type(attrs["epsilon_hat"])
    step = np.multiply(m_new, dtype.type(attrs["step_size"]))
    step /= denom
    return np.subtract(param, step), m_new, v_new


KERNELS: dict[str, Callable[..., Any]] = {
    "AdamUpdate": adam_update,
}
