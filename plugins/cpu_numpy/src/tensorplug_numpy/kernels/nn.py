"""Neural-network kernels: Softmax and LogSoftmax along one axis, with the maximum subtracted
first so that large inputs neither overflow nor lose precision; float32 stays float32.
SparseSoftmaxCrossEntropyWithLogits: the same shifted exponentials give both outputs (half
floats computed in float32); a label outside [0, classes) gives a row of NaN (as TF on GPU).

Along an empty axis the result is empty; a 0-d input (axis 0 or -1, which the spec accepts)
is a single-element distribution: softmax 1, log-softmax 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_NEG_INF = -np.inf
# numpy's maximum.reduce along a short last axis loops row by row (3.5 us for 32 rows of 10
# classes, 285 us for 4096 rows); over the first axis of a transposed copy it is one vectorized
# maximum per class (2 us, 23 us). Rows up to this length go that way (from about 100 on, the
# copy costs more than it saves).
_SHORT_ROWS = 64


def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
    """x minus its maximum along `axis` (an empty axis' maximum is -inf)."""
    if x.ndim == 2 and axis in (1, -1) and 0 < x.shape[1] <= _SHORT_ROWS:
        return x - np.maximum.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    # `initial` makes an empty axis give -inf instead of numpy's "no identity" error
    return x - np.maximum.reduce(x, axis=axis, keepdims=True, initial=_NEG_INF)


def softmax(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    if x.ndim == 0:
        return np.ones_like(x)
    axis = attrs["axis"]
    e = np.exp(_shifted(x, axis))
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


def log_softmax(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    if x.ndim == 0:
        return np.zeros_like(x)
    if x.size == 0:  # nothing to normalize (and log of an empty axis' zero sum would warn)
        return np.empty_like(x)
    axis = attrs["axis"]
    s = _shifted(x, axis)
    s -= np.log(np.add.reduce(np.exp(s), axis=axis, keepdims=True))
    return s


_UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def sparse_softmax_cross_entropy_with_logits(inputs: tuple[Any, ...], attrs: dict[str, Any],
                                             backend: Any) -> tuple[Any, Any]:
    features, labels = inputs
    rows, classes = features.shape
    dtype = features.dtype
    if dtype.itemsize < 4:  # float16, bfloat16: exp and its sum in float32
        features = features.astype(np.float32)
    # as unsigned, a negative label is huge: one reduction finds both kinds of bad label
    bad = None
    unsigned = labels.view(_UNSIGNED[labels.dtype])
    if rows and np.maximum.reduce(unsigned) >= classes:
        bad = unsigned >= classes
        labels = np.where(bad, 0, labels) if classes else np.zeros_like(labels)
    if not classes:
        return np.full(rows, np.nan, dtype), np.empty_like(features, dtype)
    s = _shifted(features, 1)
    backprop = np.exp(s)
    sums = np.add.reduce(backprop, axis=1)
    backprop /= sums[:, None]
    loss = np.log(sums, out=sums)
    first = np.arange(0, rows * classes, classes)
    first += labels
    loss -= s.reshape(-1)[first]
    backprop.reshape(-1)[first] -= 1
    if bad is not None:
        loss[bad] = np.nan
        backprop[bad] = np.nan
    if dtype.itemsize < 4:
        return loss.astype(dtype), backprop.astype(dtype)
    return loss, backprop


KERNELS: dict[str, Callable[..., Any]] = {
    "Softmax": softmax,
    "LogSoftmax": log_softmax,
    "SparseSoftmaxCrossEntropyWithLogits": sparse_softmax_cross_entropy_with_logits,
}
