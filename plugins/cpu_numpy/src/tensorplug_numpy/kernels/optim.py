"""Optimizer-update kernels: AdamUpdate, fused into a few ufunc calls on fresh arrays."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import tensorplug as tp

_BFLOAT16 = tp.bfloat16.numpy


def adam_update(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any, Any]:
    param, grad, m, v = inputs
    if param.dtype == _BFLOAT16:  # (ml_dtypes' bfloat16 meets Python floats in float32): in float32
        wide = adam_update(tuple(a.astype(np.float32) for a in inputs), attrs, backend)
        return wide[0].astype(_BFLOAT16), wide[1].astype(_BFLOAT16), wide[2].astype(_BFLOAT16)
    b1, one_minus_b1, b2, one_minus_b2 = _decay_rates(param.dtype, attrs["beta1"], attrs["beta2"])
    m_new = np.multiply(m, b1)
    m_new += np.multiply(grad, one_minus_b1)
    v_new = np.multiply(grad, grad)
    v_new *= one_minus_b2
    v_new += np.multiply(v, b2)
    denom = np.sqrt(v_new)
    # (Python floats are weak: numpy rounds them to the dtype once; a numpy float64 would widen)
    denom += float(attrs["epsilon_hat"])
    step = np.multiply(m_new, float(attrs["step_size"]))
    step /= denom
    return np.subtract(param, step), m_new, v_new


@functools.lru_cache(maxsize=64)
def _decay_rates(dtype: np.dtype, beta1: float, beta2: float) -> tuple[Any, Any, Any, Any]:
    """beta1, 1 - beta1, beta2, 1 - beta2 as scalars of `dtype`: 1 - beta in Python's float,
    then rounded once, as Adam's ops compute it (tp.jit plans them). Kept: a conversion costs
    about as much as a small array's multiply, and the rates stay the same from step to step."""
    to = dtype.type
    return to(beta1), to(1.0 - beta1), to(beta2), to(1.0 - beta2)


KERNELS: dict[str, Callable[..., Any]] = {
    "AdamUpdate": adam_update,
}
