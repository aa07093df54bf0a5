"""Batching rules of the block layout kernels (SpaceToBatchND, BatchToSpaceND) and Diag.

SpaceToBatchND and BatchToSpaceND rearrange an example's own batch axis and its spatial axes
and carry the axes after them untouched: vmap's batch axis goes there. Diag of a batch is one
diagonal matrix per example, written as a broadcast Where against an identity mask (never a
multiplication, which would turn an inf or NaN into NaNs off the diagonal)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_
from tensorplug.families._common.batching_util import Axes, Inputs, batching_rule, reshaped, spread, to_front
from tensorplug.families.creation.ops import eye, zeros
from tensorplug.families.elementwise.ops import where
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.batching import BatchConfig
from tensorplug.registry.core_entries import declare_batching_rule


def _blocks(dispatcher: Dispatcher) -> Any:
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
        after = len(attrs["block_shape"]) + 1  # (the example's batch axis and spatial axes)
        return dispatcher((spread(inputs[0], axes[0], 0, after),), attrs), after
    return rule


for _name in ("SpaceToBatchND", "BatchToSpaceND"):
    declare_batching_rule(BatchConfig(_name, _blocks(dispatcher_of(_name))))


@batching_rule("Diag")
def _diag(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    x = to_front(inputs[0], axes[0])
    size, shape = x.shape[0], x.shape[1:]
    n = math.prod(shape)
    out = where(eye(n, dtype=bool_), reshaped(x, (size, n, 1)), zeros((), dtype=x.dtype))
    return reshaped(out, (size,) + shape + shape), 0
