"""Neural-network kernels: Softmax and LogSoftmax along one axis, with the maximum subtracted
first (as the numpy backend) so that large inputs neither overflow nor lose precision.

Along an empty axis the result is empty; a 0-d input is a single-element distribution:
softmax 1, log-softmax 0. SparseSoftmaxCrossEntropyWithLogits: both outputs from the same
shifted exponentials (half floats computed in float32); a label outside [0, classes) gives a
row of NaN, as on the numpy backend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tensorplug_jax.kernels._jit import with_attrs


def _shifted(x: Any, axis: int) -> Any:
    # `initial` makes an empty axis give -inf instead of an error
    return x - jnp.max(x, axis=axis, keepdims=True, initial=-jnp.inf)


def _softmax(x: Any, axis: int) -> Any:
    if x.ndim == 0:
        return jnp.ones_like(x)
    e = jnp.exp(_shifted(x, axis))
    return e / jnp.sum(e, axis=axis, keepdims=True)


def _log_softmax(x: Any, axis: int) -> Any:
    if x.ndim == 0:
        return jnp.zeros_like(x)
    if x.size == 0:
        return x
    s = _shifted(x, axis)
    return s - jnp.log(jnp.sum(jnp.exp(s), axis=axis, keepdims=True))


def _sparse_xent(features: Any, labels: Any) -> tuple[Any, Any]:
    dtype = features.dtype
    if dtype.itemsize < 4:  # float16, bfloat16: exp and its sum in float32
        features = features.astype(jnp.float32)
    classes = features.shape[1]
    bad = (labels < 0) | (labels >= classes)
    s = _shifted(features, 1)
    e = jnp.exp(s)
    sums = jnp.sum(e, axis=1)
    one_hot = labels[:, None] == jnp.arange(classes, dtype=labels.dtype)
    loss = jnp.log(sums) - jnp.sum(jnp.where(one_hot, s, 0), axis=1)
    backprop = e / sums[:, None] - one_hot.astype(e.dtype)
    loss = jnp.where(bad, jnp.nan, loss)
    backprop = jnp.where(bad[:, None], jnp.nan, backprop)
    return loss.astype(dtype), backprop.astype(dtype)


KERNELS: dict[str, Callable[..., Any]] = {
    "Softmax": with_attrs(_softmax, static=("axis",)),
    "LogSoftmax": with_attrs(_log_softmax, static=("axis",)),
    "SparseSoftmaxCrossEntropyWithLogits": with_attrs(_sparse_xent),
}
