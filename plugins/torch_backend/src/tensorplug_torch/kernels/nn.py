"""Neural-network kernels: Softmax and LogSoftmax along one axis (torch's own, which subtract
the maximum first; a 0-d input is a single-element distribution: softmax 1, log-softmax 0).
SparseSoftmaxCrossEntropyWithLogits: loss and backprop from one log-softmax (half floats
computed in float32); a label outside [0, classes) gives a row of NaN, as on the numpy backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]


def softmax(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x = inputs[0]
    return torch.softmax(x, attrs["axis"]) if x.ndim else torch.ones_like(x)


def log_softmax(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    x = inputs[0]
    return torch.log_softmax(x, attrs["axis"]) if x.ndim else torch.zeros_like(x)


def sparse_softmax_cross_entropy_with_logits(inputs: list[torch.Tensor], attrs: dict[str, Any],
                                             backend: Any) -> tuple[torch.Tensor, torch.Tensor]:
    features, labels = inputs
    dtype = features.dtype
    rows, classes = features.shape
    if not classes:
        return features.new_full((rows,), float("nan")), features.new_empty(features.shape)
    if dtype.itemsize < 4:  # float16, bfloat16: exp and its sum in float32
        features = features.float()
    # one reduction tells whether every label is a class (the common case: no masking then)
    low, high = torch.aminmax(labels) if rows else (0, 0)
    bad = None if int(low) >= 0 and int(high) < classes else (labels < 0) | (labels >= classes)
    picked = (labels if bad is None else torch.where(bad, 0, labels)).long().unsqueeze(1)
    logp = torch.log_softmax(features, 1)
    loss = logp.gather(1, picked).squeeze(1).neg_()
    backprop = logp.exp_().scatter_add_(1, picked, features.new_full(picked.shape, -1.0))
    if bad is not None:
        loss = loss.masked_fill(bad, float("nan"))
        backprop = backprop.masked_fill(bad.unsqueeze(1), float("nan"))
    if backprop.dtype != dtype:
        loss, backprop = loss.to(dtype), backprop.to(dtype)
    return loss, backprop


KERNELS: dict[str, Callable[..., Any]] = {
    "Softmax": softmax,
    "LogSoftmax": log_softmax,
    "SparseSoftmaxCrossEntropyWithLogits": sparse_softmax_cross_entropy_with_logits,
}
