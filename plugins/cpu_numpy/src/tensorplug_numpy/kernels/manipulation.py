"""Shape-manipulation kernels: Reshape, Transpose, BroadcastTo, Concat, Stack, Pad, Roll.

Reshape and Transpose return numpy views of their input; that is safe because native arrays
are never written after creation. BroadcastTo materializes its result: numpy's broadcast view
is read-only and repeats memory through zero strides, which a kernel writing into a copy of
its input (or a user holding ``.numpy()``) should never meet.

They move data and compute nothing, so no floating-point warning can arise: they run without
the switch (``handles_warnings``). Reshape and Transpose offer their array method, bound to
the attributes, as their direct call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import DirectCall
from tensorplug_numpy.kernels._kernel import Kernel


def reshape(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.reshape(inputs[0], attrs["shape"])


def transpose(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.transpose(inputs[0], attrs["perm"])


def broadcast_to(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    shape = attrs["shape"]
    if x.shape == shape:
        return x
    out = np.empty(shape, dtype=x.dtype)  # filled by broadcasting: np.broadcast_to's Python
    np.copyto(out, x)  # checks cost more than the copy on small arrays
    return out


def concat(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.concatenate(inputs, axis=attrs["axis"])


def stack(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.stack(inputs, axis=attrs["axis"])


def pad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """A constant-filled array of the padded shape with x written in (faster than np.pad)."""
    x = inputs[0]
    widths = attrs["pad_width"]
    if len(widths) != x.ndim:
        raise ValueError(f"{len(widths)} pad widths for a {x.ndim}-d input")
    shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, widths))
    out = np.full(shape, attrs["constant_value"], dtype=x.dtype)
    out[tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, widths))] = x
    return out


def roll(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    if not attrs["axis"]:  # (np.roll refuses an empty axis tuple on a 0-d input)
        return x.copy()
    return np.roll(x, attrs["shift"], axis=attrs["axis"])


def _method(name: str, attr: str) -> Callable[[Mapping[str, Any]], Callable[[Any], Any]]:
    """attrs -> ``x.name(attrs[attr])``, a C-level call (``operator.methodcaller``)."""
    return lambda attrs: operator.methodcaller(name, attrs[attr])


def _moving(kernel: Callable[..., Any], direct: DirectCall | None = None) -> Kernel:
    return Kernel(kernel, direct, handles_warnings=True)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Reshape": _moving(reshape, DirectCall(ALL_DTYPES, specialize=_method("reshape", "shape"))),
    "Transpose": _moving(transpose, DirectCall(ALL_DTYPES, specialize=_method("transpose", "perm"))),
    "BroadcastTo": _moving(broadcast_to),
    "Concat": _moving(concat),
    "Stack": _moving(stack),
    "Pad": _moving(pad),
    "Roll": _moving(roll),
}
