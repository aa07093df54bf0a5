"""Batching rules of the reductions, cumulative kernels and sorts: the batch axis first, the
reduced axes shifted past it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.batching_util import Axes, Inputs, reshaped, shifted, to_front, with_axes
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.batching import BatchConfig
from tensorplug.registry.core_entries import declare_batching_rule

with_axes("Sum", "Prod", "Max", "Min", "EuclideanNorm", "Cumsum", "Cumprod", "Sort", "ArgSort")


def _arg_rule(run: Dispatcher) -> Any:
    """ArgMax/ArgMin: the axis shifted; with axis None, over each flattened example."""
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
        (x,), (a,) = inputs, axes
        x = to_front(x, a)
        rank = x.ndim - 1
        if attrs["axis"] is not None:
            return run((x,), {"axis": shifted(attrs["axis"], rank), "keepdims": attrs["keepdims"]}), 0
        out = run((reshaped(x, (x.shape[0], -1)),), {"axis": 1, "keepdims": False})
        return (reshaped(out, (x.shape[0],) + (1,) * rank) if attrs["keepdims"] else out), 0
    return rule


for _name in ("ArgMax", "ArgMin"):
    declare_batching_rule(BatchConfig(_name, _arg_rule(dispatcher_of(_name))))
