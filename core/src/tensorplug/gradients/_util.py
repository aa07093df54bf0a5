"""Helpers gradients are written with."""

from __future__ import annotations

from collections.abc import Sequence

from ..tensor import Tensor

__all__ = ["unbroadcast"]


def unbroadcast(g: Tensor, shape: Sequence[int]) -> Tensor:
    """Sum `g` over the axes that broadcasting added or stretched, giving `shape`."""
    from ..ops.manipulation import reshape
    from ..ops.reductions import sum as sum_

    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1
    )
    return reshape(sum_(g, axis=axes), shape) if axes else reshape(g, shape)
