"""Batching rules of FusedMatMul and of Prelu (the activation with a tensor of slopes, which
FusedMatMul's 'prelu' fuses): the inputs aligned on a leading batch axis, as MatMul's and the
elementwise kernels' general rules align them, with the product (or x) always batched so that
a batched bias or slope tensor broadcasts into it without growing it."""

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
    logical_rank,
    spread,
)
from tensorplug.kernels.dispatcher import dispatcher_of

_PRELU, _FUSED_MATMUL = dispatcher_of("Prelu"), dispatcher_of("FusedMatMul")


@batching_rule("Prelu")
def _prelu(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    (x, alpha), (ax, aa) = inputs, axes
    x = spread(x, ax, batch_size(inputs, axes), 0)
    return _PRELU((x, aligned(alpha, aa, x.ndim - 1)), attrs), 0


@batching_rule("FusedMatMul")
def _fused_matmul(inputs: Inputs, axes: Axes, attrs: Mapping[str, Any]) -> tuple[Tensor, int]:
    """A stack of products, the batch a leading axis that broadcasts (a broadcast over the
    batch when only the bias or the slopes are batched); a placeholder input (a bias without
    has_bias, slopes without 'prelu') goes as it is: the kernel ignores it."""
    (a, b, bias, slopes), (aa, ab, abias, aslopes) = inputs, axes
    if aa is None and ab is None:
        a, aa = spread(a, None, batch_size(inputs, axes), 0), 0
    rank = max(logical_rank(a, aa), logical_rank(b, ab))
    if attrs["has_bias"]:
        bias = aligned(bias, abias, rank)
    if attrs["activation"] == "prelu":
        slopes = aligned(slopes, aslopes, rank)
    return _FUSED_MATMUL((aligned(a, aa, rank), aligned(b, ab, rank), bias, slopes), attrs), 0
