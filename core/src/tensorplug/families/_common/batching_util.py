"""Helpers batching rules are written with: registration, moving the batch axis, and the rules
whole classes of kernels share (elementwise kernels of any arity, kernels whose attributes
name axes).

A rule receives the kernel's inputs on the level beneath vmap, each with its batch axis (None:
the same value for every example), and runs ops there; see ``tensorplug.extend.BatchConfig``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.kernels.dispatcher import Dispatcher, dispatcher_of
from tensorplug.registry.batching import BatchConfig, BatchFunc
from tensorplug.registry.core_entries import declare_batching_rule

__all__ = ["batching_rule", "reshaped", "transposed", "broadcast", "select", "to_front", "moved", "spread",
           "batch_size", "logical_rank", "aligned", "all_batched", "elementwise", "same_shape_elementwise",
           "shifted", "with_axes", "Axes", "Inputs"]

Inputs = tuple[Tensor, ...]
Axes = tuple[int | None, ...]


def batching_rule(*kernel_names: str) -> Callable[[BatchFunc], BatchFunc]:
    """Decorator: declare the function as the batching rule of each of `kernel_names`
    (``rule(inputs, batch_axes, attrs) -> (outputs, out_batch_axes)``)."""
    def register(func: BatchFunc) -> BatchFunc:
        for name in kernel_names:
            declare_batching_rule(BatchConfig(name, func))
        return func
    return register


_RESHAPE, _TRANSPOSE = dispatcher_of("Reshape"), dispatcher_of("Transpose")
_BROADCAST_TO = dispatcher_of("BroadcastTo")


# the layout kernels rules run most, called without the ops' argument checks (the rules'
# shapes are right by construction)
def reshaped(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """`x` reshaped (Reshape; one entry may be -1)."""
    return _RESHAPE((x,), {"shape": tuple(shape)})


def transposed(x: Tensor, perm: Sequence[int]) -> Tensor:
    """`x` with its axes permuted (Transpose)."""
    return _TRANSPOSE((x,), {"perm": tuple(perm)})


def broadcast(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """`x` broadcast to `shape` (BroadcastTo)."""
    return _BROADCAST_TO((x,), {"shape": tuple(shape)})


def select(x: Tensor, axis: int, i: int) -> Tensor:
    """Example `i` of `x`, whose batch is along `axis`."""
    return x[(slice(None),) * axis + (i,)]


def to_front(x: Tensor, axis: int | None) -> Tensor:
    """`x` with its batch axis first (as it is if it is there already, or unbatched)."""
    if not axis:
        return x
    order = list(range(x.ndim))
    order.insert(0, order.pop(axis))
    return transposed(x, order)


def moved(x: Tensor, axis: int, to: int) -> Tensor:
    """`x` with its batch axis moved from `axis` to `to` (the other axes keep their order)."""
    if axis == to:
        return x
    order = list(range(x.ndim))
    order.insert(to, order.pop(axis))
    return transposed(x, order)


def spread(x: Tensor, axis: int | None, size: int, to: int) -> Tensor:
    """`x` with its batch axis at `to`: moved there, or for an unbatched `x` a new axis there
    broadcast to the batch `size`."""
    if axis is not None:
        return moved(x, axis, to)
    shape = x.shape
    return broadcast(reshaped(x, shape[:to] + (1,) + shape[to:]), shape[:to] + (size,) + shape[to:])


def batch_size(inputs: Sequence[Tensor], axes: Sequence[int | None]) -> int:
    """The batch size, from the first batched input."""
    for x, a in zip(inputs, axes):
        if a is not None:
            return x.shape[a]
    raise ValueError("batch_size: no input is batched")


def logical_rank(x: Tensor, axis: int | None) -> int:
    """The rank of one example of `x`."""
    return x.ndim if axis is None else x.ndim - 1


def aligned(x: Tensor, axis: int | None, rank: int) -> Tensor:
    """A batched `x` with its batch axis first and size-1 axes after it up to per-example rank
    `rank` (so that it broadcasts against other examples of that rank); an unbatched `x` as it
    is (broadcasting aligns it right)."""
    if axis is None:
        return x
    x = to_front(x, axis)
    missing = rank - (x.ndim - 1)
    if missing > 0:
        shape = x.shape
        x = reshaped(x, (shape[0],) + (1,) * missing + shape[1:])
    return x


def all_batched(inputs: Inputs, axes: Axes) -> list[Tensor]:
    """Every input with the batch axis first, unbatched ones broadcast over the batch."""
    size = batch_size(inputs, axes)
    return [to_front(x, a) if a is not None else broadcast(x, (size,) + x.shape)
            for x, a in zip(inputs, axes)]


def elementwise(*kernel_names: str) -> None:
    """Declare the rule of elementwise kernels that broadcast (any arity, any attributes):
    batched inputs aligned (batch axis first), the kernel once; batch axis 0."""
    for name in kernel_names:
        declare_batching_rule(BatchConfig(name, _elementwise_rule(dispatcher_of(name))))


def _elementwise_rule(dispatcher: Dispatcher) -> BatchFunc:
    def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int | None]:
        if len(inputs) == 1:
            return dispatcher(inputs, attrs), axes[0]
        ranks = [len(x._backend.shape_of(x._data)) - (a is not None) for x, a in zip(inputs, axes)]
        rank = max(ranks)
        if all(a == 0 or a is None for a in axes) and all(  # (batched ones already aligned)
                r == rank for r, a in zip(ranks, axes) if a is not None):
            return dispatcher(inputs, attrs), 0
        return dispatcher([aligned(x, a, rank) for x, a in zip(inputs, axes)], attrs), 0
    return rule


def same_shape_elementwise(*kernel_names: str) -> None:
    """Declare the rule of elementwise kernels whose inputs have one shape (no broadcasting):
    every input batched along axis 0, the kernel once."""
    for name in kernel_names:
        dispatcher = dispatcher_of(name)

        def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any],
                 dispatcher: Dispatcher = dispatcher) -> tuple[Tensor, int]:
            return dispatcher(all_batched(inputs, axes), attrs), 0
        declare_batching_rule(BatchConfig(name, rule))


def shifted(axes: int | Sequence[int] | None, rank: int) -> Any:
    """Per-example axes (negative allowed; None: all of them) as axes of a tensor whose batch
    axis is first: each normalized against `rank` and moved one up."""
    if axes is None:
        return tuple(range(1, rank + 1))
    if isinstance(axes, int):
        return (axes % rank if rank else 0) + 1
    return tuple((a % rank if rank else 0) + 1 for a in axes)


def with_axes(*kernel_names: str, attr: str = "axis") -> None:
    """Declare the rule of one-input kernels whose attribute `attr` names axes of the input
    (an int, a tuple, or None for all): batch axis first, the axes shifted past it; batch
    axis 0 of each output."""
    for name in kernel_names:
        dispatcher = dispatcher_of(name)

        def rule(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any],
                 dispatcher: Dispatcher = dispatcher) -> tuple[Any, int]:
            (x,), (a,) = inputs, axes
            x = to_front(x, a)
            new = dict(attrs)
            if x.ndim == 1 and isinstance(attrs[attr], int):  # a 0-d example: give it an axis
                new[attr] = 1
                out = dispatcher((reshaped(x, x.shape + (1,)),), new)
                return reshaped(out, x.shape), 0
            new[attr] = shifted(attrs[attr], x.ndim - 1)
            return dispatcher((x,), new), 0
        declare_batching_rule(BatchConfig(name, rule))
