"""Neural-network kernels: Softmax and LogSoftmax along one axis, with the maximum subtracted
first so that large inputs neither overflow nor lose precision; float32 stays float32.

Along an empty axis the result is empty; a 0-d input (axis 0 or -1, which the spec accepts)
is a single-element distribution: softmax 1, log-softmax 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_NEG_INF = -np.inf


def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
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


KERNELS: dict[str, Callable[..., Any]] = {
    "Softmax": softmax,
    "LogSoftmax": log_softmax,
}
