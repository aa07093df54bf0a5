"""JVP rules of Softmax (y (t - sum(t y))) and LogSoftmax (t - sum(exp(y) t)), written with
their outputs y, the sums over the normalized axis; SparseSoftmaxCrossEntropyWithLogits
(d loss = sum(t backprop), d backprop = Softmax's rule at p = backprop + one_hot(labels))."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import jvp_rule
from tensorplug.families.nn.ops import one_hot

Tangents = tuple[Tensor | None, ...]


@jvp_rule("Softmax")
def _softmax(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
    (t,), (y,) = tangents, outputs
    return y * (t - tp.sum(t * y, axis=attrs["axis"], keepdims=True))


@jvp_rule("LogSoftmax")
def _log_softmax(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                 attrs: Mapping[str, Any]) -> Tensor:
    (t,), (y,) = tangents, outputs
    return t - tp.sum(tp.exp(y) * t, axis=attrs["axis"], keepdims=True)


@jvp_rule("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                 attrs: Mapping[str, Any]) -> tuple[Tensor, Tensor]:
    """loss = logsumexp(f) - f[label]: d loss = sum(p t) - t[label] = sum(backprop t)."""
    (_, labels), (t, _), (_, backprop) = primals, tangents, outputs
    assert t is not None  # (labels are integers: the features carry the tangent)
    probs = backprop + one_hot(labels, backprop.shape[1], dtype=backprop.dtype)
    return (tp.sum(t * backprop, axis=1),
            probs * (t - tp.sum(t * probs, axis=1, keepdims=True)))
