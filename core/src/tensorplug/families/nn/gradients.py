"""Default gradients of the neural-network kernels, written with their outputs:
Softmax (y * (dy - sum(dy * y))), LogSoftmax (dy - exp(y) * sum(dy)) and
SparseSoftmaxCrossEntropyWithLogits (backprop * dloss, plus Softmax's rule for dbackprop)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient
from tensorplug.families.nn.ops import one_hot

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("Softmax", outputs=("out",))
def _softmax(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: y * (dy - tp.sum(dy * y, axis=attrs["axis"], keepdims=True))}


@gradient("LogSoftmax", outputs=("out",))
def _log_softmax(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy - tp.exp(y) * tp.sum(dy, axis=attrs["axis"], keepdims=True)}


@gradient("SparseSoftmaxCrossEntropyWithLogits", inputs=("labels",), outputs=("backprop",))
def _sparse_xent(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """d features = backprop * dloss[:, None] + p * (dbackprop - sum(dbackprop * p)), p the
    softmax (backprop + one_hot(labels)); labels take none (TF's rule)."""
    labels, backprop = saved
    dloss, dbackprop = dy

    def grad() -> Tensor:
        probs = backprop + one_hot(labels, backprop.shape[1], dtype=backprop.dtype)
        second = probs * (dbackprop - tp.sum(dbackprop * probs, axis=1, keepdims=True))
        return backprop * tp.expand_dims(dloss, axis=1) + second

    return {"features": grad}
