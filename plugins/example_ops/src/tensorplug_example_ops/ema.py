"""Path 1 of the guide: an op composed entirely from existing ops.

``ema`` never names a kernel: it builds its result from ``tp.arange``, ``tp.pow``,
``tp.where`` and ``tp.matmul``, so every backend that has those kernels runs it, and it is
differentiable (to any order, with respect to ``x`` and to ``alpha``) with no gradient of its
own.
"""

from __future__ import annotations

from typing import Any

import tensorplug as tp

__all__ = ["ema"]


def ema(x: Any, alpha: Any, axis: int = -1) -> tp.Tensor:
    """Exponential moving average of `x` along `axis`.

    ``y[0] = x[0]`` and ``y[t] = alpha * x[t] + (1 - alpha) * y[t - 1]`` (pandas'
    ``ewm(alpha=..., adjust=False).mean()``). `alpha` is a float in (0, 1] or a float Tensor of
    shape (), which is then differentiable too. Written as one matrix product with the
    lower-triangular weights ``w[t, s]``, so it costs O(n^2) for a length-n axis: meant for
    sequences of up to a few thousand steps.
    """
    x = tp.asarray(x)
    if x.dtype.kind != "float":
        x = tp.astype(x, tp.dtypes.default_float)
    if x.ndim == 0:
        raise tp.ShapeError("ema needs at least one axis to average along; got a 0-d tensor.")
    if isinstance(alpha, (int, float)) and not 0.0 < alpha <= 1.0:
        raise ValueError(f"ema: alpha must lie in (0, 1], got {alpha!r}.")
    axis = axis if axis >= 0 else axis + x.ndim
    if not 0 <= axis < x.ndim:
        raise tp.ShapeError(f"ema: axis {axis} is out of range for shape {x.shape}.")
    n = x.shape[axis]
    alpha = tp.asarray(alpha, dtype=x.dtype)  # a Python float straight to x's precision
    if alpha.shape != ():
        raise tp.ShapeError(f"ema: alpha must be a scalar, got shape {alpha.shape}.")

    # w[t, s] = alpha * (1 - alpha) ** (t - s) for 0 < s <= t, (1 - alpha) ** t for s = 0.
    steps = tp.arange(n)
    lag = steps[:, None] - steps[None, :]
    decay = tp.pow(1.0 - alpha, tp.astype(tp.maximum(lag, 0), x.dtype))
    first = tp.where(steps[None, :] == 0, tp.ones_like(alpha), alpha)
    weights = tp.where(lag >= 0, first * decay, tp.zeros_like(decay))

    moved = tp.moveaxis(x, axis, -1)
    averaged = tp.matmul(moved, tp.matrix_transpose(weights))
    return tp.moveaxis(averaged, -1, axis)
