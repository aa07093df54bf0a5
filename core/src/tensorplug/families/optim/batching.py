"""Batching rule of AdamUpdate: param, grad, m and v batched along axis 0 (one shape), and the
step's two 0-d inputs, which a vmapped step shares (unbatched: the kernel once) or, batched,
give each example its own value (the same update from ops, each value along the batch axis)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import (
    Axes,
    Inputs,
    aligned,
    batch_size,
    batching_rule,
    broadcast,
    to_front,
)
from tensorplug.families.optim.composed import adam_update_from_ops
from tensorplug.kernels.dispatcher import dispatcher_of

_ADAM_UPDATE = dispatcher_of("AdamUpdate")


@batching_rule("AdamUpdate")
def _adam_update_rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[tuple[Tensor, ...], int]:
    size = batch_size(inputs, axes)
    param, grad, m, v = (to_front(x, a) if a is not None else broadcast(x, (size,) + x.shape)
                         for x, a in zip(inputs[:4], axes[:4]))
    step_size, epsilon_hat = inputs[4:]
    if axes[4] is None and axes[5] is None:
        return _ADAM_UPDATE((param, grad, m, v, step_size, epsilon_hat), attrs), 0
    rank = param.ndim - 1  # (per example; a batched value gets size-1 axes to broadcast over it)
    step_size, epsilon_hat = aligned(step_size, axes[4], rank), aligned(epsilon_hat, axes[5], rank)
    return adam_update_from_ops(param, grad, m, v, float(attrs["beta1"]), float(attrs["beta2"]), step_size,
                                epsilon_hat), 0
