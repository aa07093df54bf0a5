"""Optimizer-update kernels: AdamUpdate, fused into a few ufunc calls that write three fresh
arrays and one scratch array. The scalars are 0-d arrays of the parameters' dtype (step_size and
epsilon_hat come as such; beta1 and beta2 are rounded once from Python's float, as Adam's ops
round them, so the same bits as those ops), and a ufunc takes a 0-d array for less than it
takes a Python or numpy scalar."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import tensorplug as tp

_BFLOAT16 = tp.bfloat16.numpy
# (module names: a kernel of a dozen ufunc calls on small arrays pays for each attribute lookup)
_multiply, _add, _subtract, _divide, _sqrt = np.multiply, np.add, np.subtract, np.divide, np.sqrt


def adam_update(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, Any, Any]:
    param, grad, m, v, step_size, epsilon_hat = inputs
    dtype = param.dtype
    if dtype is _BFLOAT16:  # (ml_dtypes' bfloat16 meets Python floats in float32): in float32
        wide = adam_update(tuple(a.astype(np.float32) for a in inputs), attrs, backend)
        return wide[0].astype(_BFLOAT16), wide[1].astype(_BFLOAT16), wide[2].astype(_BFLOAT16)
    if not param.ndim:  # (a ufunc gives a numpy scalar for 0-d arrays, which takes no out=)
        p, m, v = adam_update((*(a.reshape(1) for a in inputs[:4]), step_size, epsilon_hat), attrs, backend)
        return p.reshape(()), m.reshape(()), v.reshape(())
    b1, one_minus_b1, b2, one_minus_b2 = _decay_rates(dtype, attrs["beta1"], attrs["beta2"])
    m_new = _multiply(m, b1)
    scratch = _multiply(grad, one_minus_b1)
    _add(m_new, scratch, out=m_new)
    v_new = _multiply(grad, grad)
    _multiply(v_new, one_minus_b2, out=v_new)
    _add(v_new, _multiply(v, b2, out=scratch), out=v_new)
    denom = _sqrt(v_new, out=scratch)
    _add(denom, epsilon_hat, out=denom)
    step = _multiply(m_new, step_size)
    _divide(step, denom, out=step)
    return _subtract(param, step, out=step), m_new, v_new


@functools.lru_cache(maxsize=64)
def _decay_rates(dtype: np.dtype, beta1: float, beta2: float) -> tuple[Any, Any, Any, Any]:
    """beta1, 1 - beta1, beta2, 1 - beta2 as 0-d arrays of `dtype`: 1 - beta in Python's
    float, then rounded once, as Adam's ops compute it (tp.jit plans them). Kept: a conversion
    costs about as much as a small array's multiply, and the rates stay the same from step to
    step. (0-d arrays: never written, so shared safely.)"""
    return (np.array(beta1, dtype), np.array(1.0 - beta1, dtype),
            np.array(beta2, dtype), np.array(1.0 - beta2, dtype))


KERNELS: dict[str, Callable[..., Any]] = {
    "AdamUpdate": adam_update,
}
