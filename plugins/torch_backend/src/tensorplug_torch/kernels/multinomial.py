"""Multinomial: ``torch.multinomial`` (with replacement) over each row's probabilities (the
softmax of the logits, in float64; the input itself when ``normalized``), from a
``torch.Generator`` seeded with the ``seed`` attribute (the same seed gives the same draws). A
row that is no distribution (a NaN, a negative probability, all zero) draws class 0, as on the
jax backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["KERNELS"]

_SEEDS = 1 << 64  # (torch takes seeds in [0, 2**64): any integer seed is taken modulo that)


def multinomial(inputs: list[torch.Tensor], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    logits = inputs[0].double()
    batch, classes = logits.shape
    samples = attrs["num_samples"]
    if not (batch and classes and samples):
        return torch.zeros((batch, samples), dtype=torch.int64, device=logits.device)
    p = logits if attrs["normalized"] else torch.softmax(logits, dim=1)
    bad = ~(torch.isfinite(p) & (p >= 0)).all(dim=1) | ~(p.sum(dim=1) > 0)
    if bool(bad.any()):  # (torch.multinomial raises for them; they draw class 0, as on jax)
        p = torch.where(bad[:, None], torch.arange(classes, device=p.device) == 0, p)
    generator = torch.Generator(logits.device).manual_seed(attrs["seed"] % _SEEDS)
    return torch.multinomial(p, samples, replacement=True, generator=generator)


KERNELS: dict[str, Callable[..., Any]] = {"Multinomial": multinomial}
