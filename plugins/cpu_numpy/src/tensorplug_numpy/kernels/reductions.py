"""Reduction kernels: Sum, Prod, Max, Min, EuclideanNorm (over a tuple of axes or all), ArgMax,
ArgMin (one axis or the flattened input), Cumsum, Cumprod (one axis, exclusive and/or reversed).

Sums and products of bool and int32 accumulate in int64, as the spec says. The specs accept
axis 0 or -1 for a 0-d input (where numpy refuses any axis): reducing a 0-d input over its
"axis" reduces over nothing, so those kernels drop the axis.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug.dtypes import NUMERIC_DTYPES, float32, float64, int64
from tensorplug.extend import DirectCall
from tensorplug.kernel_helpers import ACCUMULATOR_DTYPES, euclidean_norm
from tensorplug_numpy.kernels._kernel import Kernel

_WIDE = dict(ACCUMULATOR_DTYPES)  # a dict of its own: the fastest lookup on the hot path
_INT64 = np.dtype(np.int64)
_INTP_IS_INT64 = np.dtype(np.intp) == _INT64


def _reduce(ufunc: np.ufunc, widen: bool) -> Kernel:
    """The reduction of `ufunc`; its direct calls (``ufunc.reduce`` with the attributes bound)
    serve the dtypes that accumulate in their own dtype (numpy refuses a tuple of axes for a
    0-d input: the kernel function then drops it). Sums, products and extrema are plain
    arithmetic: numpy's warning settings stay as they are."""
    reduce = ufunc.reduce
    wide = _WIDE if widen else {}

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x = inputs[0]
        return reduce(x, axis=attrs["axis"] if x.ndim else None, dtype=wide.get(x.dtype),
                      keepdims=attrs["keepdims"])
    kernel.__name__ = f"reduce_{ufunc.__name__}"

    def over_every_axis(x: Any) -> Any:
        return reduce(x, None)  # (positional: keywords cost a third of a tiny sum)

    def specialize(attrs: Mapping[str, Any]) -> Callable[[Any], Any]:
        if not attrs["keepdims"]:
            if attrs["axis"] is None:
                return over_every_axis
            if attrs["axis"] == (0,):
                return reduce  # its defaults (axis 0, no keepdims)
        return functools.partial(reduce, axis=attrs["axis"], keepdims=attrs["keepdims"])

    dtypes = (float32, float64, int64) if widen else NUMERIC_DTYPES
    return Kernel(kernel, DirectCall(dtypes, specialize=specialize), handles_warnings=True)


def _euclidean_norm(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return euclidean_norm(np, inputs[0], attrs["axis"], attrs["keepdims"])


def _arg(fn: Callable[..., Any]) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x = inputs[0]
        out = fn(x, axis=attrs["axis"] if x.ndim else None, keepdims=attrs["keepdims"])
        return out if _INTP_IS_INT64 else out.astype(_INT64)
    kernel.__name__ = fn.__name__
    return kernel


def _cumulative(ufunc: np.ufunc) -> Callable[..., Any]:
    accumulate = ufunc.accumulate
    identity = ufunc.identity

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x = inputs[0]
        dtype = _WIDE.get(x.dtype, x.dtype)
        if x.ndim == 0:
            return np.asarray(identity if attrs["exclusive"] else x, dtype=dtype)
        axis = attrs["axis"]
        reverse = attrs["reverse"]
        if reverse:
            x = np.flip(x, axis)
        y = accumulate(x, axis=axis, dtype=dtype)
        if attrs["exclusive"]:
            y = _shift_in(y, axis % y.ndim, identity)
        return np.flip(y, axis) if reverse else y
    kernel.__name__ = f"cumulative_{ufunc.__name__}"
    return kernel


def _shift_in(y: np.ndarray, axis: int, identity: Any) -> np.ndarray:
    """y moved one step along `axis`, its first entry the identity (inclusive -> exclusive)."""
    out = np.empty_like(y)
    lead = (slice(None),) * axis
    out[lead + (slice(0, 1),)] = identity
    out[lead + (slice(1, None),)] = y[lead + (slice(None, -1),)]
    return out


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Sum": _reduce(np.add, widen=True),
    "Prod": _reduce(np.multiply, widen=True),
    "Max": _reduce(np.maximum, widen=False),  # empty axes raise; the spec explains why
    "Min": _reduce(np.minimum, widen=False),
    "EuclideanNorm": _euclidean_norm,
    "ArgMax": _arg(np.argmax),
    "ArgMin": _arg(np.argmin),
    "Cumsum": _cumulative(np.add),
    "Cumprod": _cumulative(np.multiply),
}
