"""Path 4 of the guide: an op whose gradient is given with ``tp.custom_grad``.

``softplus(x) = log(1 + exp(x))`` overflows in ``exp`` for large x when written that way; the
stable form ``max(x, 0) + log1p(exp(-|x|))`` does not, but differentiating it op by op gives a
chain of five gradients with a kink at 0 in two of them. The derivative is simply
``sigmoid(x)``: ``custom_grad`` says so, which is exact, cheap and smooth. The gradient
function is written with ops, so the gradient can be differentiated again (``sigmoid`` has
a registered gradient).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorplug as tp

__all__ = ["softplus"]


@tp.custom_grad
def _softplus(x: tp.Tensor) -> tuple[tp.Tensor, Callable[[tp.Tensor], tp.Tensor]]:
    value = tp.maximum(x, 0.0) + tp.log1p(tp.exp(-tp.abs(x)))

    def grad_fn(dy: tp.Tensor) -> tp.Tensor:
        return dy * tp.sigmoid(x)

    return value, grad_fn


def softplus(x: Any) -> tp.Tensor:
    """``log(1 + exp(x))`` elementwise, without overflow; its gradient is ``sigmoid(x)``."""
    x = tp.asarray(x)
    if x.dtype.kind != "float":
        x = tp.astype(x, tp.dtypes.default_float)
    result: tp.Tensor = _softplus(x)
    return result
