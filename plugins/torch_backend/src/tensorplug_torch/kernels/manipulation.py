"""Shape-manipulation kernels: Reshape, Transpose, BroadcastTo, Concat, Stack, Pad, Roll.

Reshape and Transpose return torch views of their input (safe: native arrays are never written
after creation) and offer them, bound to the attributes, as their direct calls. BroadcastTo
materializes its result: torch's ``expand`` view repeats memory through zero strides, which a
user holding ``.numpy()`` of it should never meet.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

import torch

from tensorplug.dtypes import ALL_DTYPES
from tensorplug.extend import DirectCall
from tensorplug_torch.kernels._kernel import Kernel
from tensorplug_torch.kernels._namespace import padded


def reshape(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.reshape(inputs[0], attrs["shape"])


def transpose(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.permute(inputs[0], attrs["perm"])


def _method(name: str, attr: str) -> Callable[[Mapping[str, Any]], Callable[[Any], Any]]:
    """attrs -> ``x.name(attrs[attr])``, a C-level call (``operator.methodcaller``)."""
    return lambda attrs: operator.methodcaller(name, attrs[attr])


def broadcast_to(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    shape = attrs["shape"]
    if tuple(x.shape) == tuple(shape):
        return x
    return x.expand(shape).contiguous()


def concat(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.cat(inputs, dim=attrs["axis"])


def stack(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return torch.stack(inputs, dim=attrs["axis"])


def pad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    """A constant-filled tensor of the padded shape with x written in."""
    x = inputs[0]
    widths = attrs["pad_width"]
    if len(widths) != x.ndim:
        raise ValueError(f"{len(widths)} pad widths for a {x.ndim}-d input")
    return padded(x, widths, attrs["constant_value"])


def roll(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    shift, axis = tuple(attrs["shift"]), tuple(attrs["axis"])
    if not axis:  # (torch.roll without dims rolls the flattened input)
        return x.clone()
    if len(shift) != len(axis):  # one of them of length 1, broadcast as numpy does
        shift, axis = shift * (len(axis) // len(shift) or 1), axis * (len(shift) // len(axis) or 1)
    return torch.roll(x, shift, dims=axis)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "Reshape": Kernel(reshape, DirectCall(ALL_DTYPES, specialize=_method("reshape", "shape"))),
    "Transpose": Kernel(transpose, DirectCall(ALL_DTYPES, specialize=_method("permute", "perm"))),
    "BroadcastTo": broadcast_to,
    "Concat": concat,
    "Stack": stack,
    "Pad": pad,
    "Roll": roll,
}
