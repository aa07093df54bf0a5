"""Kernel spec of Multinomial (TF.js): ``num_samples`` class indices per row of 2-d logits (or
of probabilities with ``normalized``), int64, from an explicit integer seed (the same seed gives
the same samples on one backend; streams differ between backends). A row of zero probabilities
(logits all -inf) draws class 0, as jax and torch do. Not differentiable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["MULTINOMIAL", "multinomial_shape"]


def multinomial_shape(logits: Sequence[int], num_samples: int, op: str | None = None) -> tuple[int, int]:
    """``(batch, num_samples)`` for (batch, classes) logits; ShapeError naming `op` for other
    ranks, no classes or a negative num_samples."""
    if len(logits) != 2 or logits[1] < 1:
        raise ShapeError(f"{op_prefix(op)}logits must be 2-d (batch, classes) with at least one class, "
                         f"got shape {tuple(logits)}.")
    if num_samples < 0:
        raise ShapeError(f"{op_prefix(op)}num_samples must be >= 0, got {num_samples}.")
    return (logits[0], num_samples)


def _rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(multinomial_shape(infos[0].shape, attrs["num_samples"]), int64)]


MULTINOMIAL = declare_spec(KernelSpec(
    name="Multinomial", inputs=("logits",), infer=_rule, differentiable=False,
    input_dtypes={"logits": FLOAT_DTYPES},
    attrs=(AttrSpec("num_samples", validate=as_int, doc="samples per row"),
           AttrSpec("seed", validate=as_int, doc="an explicit integer seed"),
           AttrSpec("normalized", False, as_bool, "logits are probabilities (rows summing to 1)")),
    doc="int64 class indices drawn from softmax(logits) per row (from logits itself if normalized)",
))
