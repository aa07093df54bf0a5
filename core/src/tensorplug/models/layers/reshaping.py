"""The reshaping layers: ``Flatten`` (each example to one axis) and ``Reshape`` (each example to
a target shape); the batch axis (axis 0) is kept. Neither holds a variable."""

from __future__ import annotations

import math
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families.manipulation.ops import reshape
from tensorplug.models.layers.inputs import as_input
from tensorplug.models.module import Module

__all__ = ["Flatten", "Reshape"]


def _batched(x: Any) -> Tensor:
    x = as_input(x)
    if x.ndim < 1:
        raise ShapeError("expected inputs with a batch axis (axis 0), got a scalar.")
    return x


class Flatten(Module):
    """(batch, d1, d2, ...) -> (batch, d1 * d2 * ...), in row-major order; (batch,) -> (batch, 1)."""

    def forward(self, x: Any) -> Tensor:
        """x with each example flattened: (batch, -1)."""
        x = _batched(x)
        return reshape(x, (x.shape[0], math.prod(x.shape[1:])))


class Reshape(Module):
    """(batch, ...) -> (batch, *target_shape): each example reshaped to `target_shape` (sizes
    >= 1, one of them may be -1: whatever the example's size leaves)."""

    def __init__(self, target_shape: Any) -> None:
        if isinstance(target_shape, (str, bytes)) or not isinstance(target_shape, (tuple, list)):
            raise ArgumentError(f"Reshape: target_shape must be a tuple of ints (the shape of each example, "
                                f"without the batch axis), got {valid.shown(target_shape)}.")
        shape = tuple(valid.integer(d, "Reshape", "target_shape") for d in target_shape)
        if any(d < 1 and d != -1 for d in shape) or shape.count(-1) > 1:
            raise ShapeError(f"Reshape: target_shape {shape} must hold sizes >= 1 and at most one -1 (the "
                             "size that the example's other sizes leave).")
        self.target_shape = shape

    def forward(self, x: Any) -> Tensor:
        """x with each example reshaped to target_shape."""
        x = _batched(x)
        size, known = math.prod(x.shape[1:]), math.prod(d for d in self.target_shape if d != -1)
        if (size != known) if -1 not in self.target_shape else (size % known != 0):
            raise ShapeError(f"cannot reshape examples of shape {x.shape[1:]} ({size} elements) to "
                             f"target_shape {self.target_shape}; give a target_shape of {size} elements.")
        shape = tuple(size // known if d == -1 else d for d in self.target_shape)
        return reshape(x, (x.shape[0], *shape))
