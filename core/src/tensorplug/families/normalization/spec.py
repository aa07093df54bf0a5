"""Kernel specs of the normalization family (TF.js's names): FusedBatchNorm (the inference form:
given moments), LRN and its backward kernel LRNGrad (local response normalization across the
last axis, channels last).

``FusedBatchNorm`` computes (x - mean) * scale / sqrt(variance + epsilon) + offset, every
parameter broadcast against x (a per-channel vector of shape (C,) for channels last, or one
that keeps x's rank); ``LRN`` computes x / (bias + alpha * sum of x^2 over the depth_radius
neighbours on the last axis) ** beta, as TF does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

_PARAMS = ("scale", "offset", "mean", "variance")


def batch_norm_shape(x: Sequence[int], params: Mapping[str, Sequence[int]],
                     op: str | None = None) -> tuple[int, ...]:
    """x's shape, if every parameter (by name) broadcasts to it without growing it; ShapeError
    naming `op` and the first parameter that does not."""
    for name, shape in params.items():
        fits = len(shape) <= len(x) and all(d in (1, n) for d, n in zip(shape[::-1], x[::-1]))
        if not fits:
            raise ShapeError(f"{op_prefix(op)}{name} has shape {tuple(shape)}, which does not broadcast to "
                             f"x's shape {tuple(x)}; give one value per channel (shape (C,) for "
                             "channels last) or a shape of x's rank with 1 on the other axes.")
    return tuple(x)


def _batch_norm_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    batch_norm_shape(x.shape, {n: i.shape for n, i in zip(_PARAMS, infos[1:])})
    return [x]


def _non_negative_float(value: Any) -> float:
    out = float(value)
    if not out >= 0 or math.isinf(out):
        raise ValueError(f"must be a finite number >= 0, got {value!r}")
    return out


def _float(value: Any) -> float:
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"must be finite, got {value!r}")
    return out


FUSED_BATCH_NORM = declare_spec(KernelSpec(
    name="FusedBatchNorm", inputs=("x", *_PARAMS), infer=_batch_norm_rule,
    input_dtypes={n: FLOAT_DTYPES for n in ("x", *_PARAMS)}, same_dtype=("x", *_PARAMS),
    attrs=(AttrSpec("epsilon", 1e-3, _non_negative_float, "added to the variance"),),
    doc="(x - mean) * scale / sqrt(variance + epsilon) + offset, the parameters broadcast",
))


def _depth_radius(value: Any) -> int:
    r = as_int(value)
    if r < 0:
        raise ValueError(f"must be >= 0, got {r}")
    return r


_LRN_ATTRS = (
    AttrSpec("depth_radius", 5, _depth_radius, "the half-width of the window on the last axis"),
    AttrSpec("bias", 1.0, _float, "added to the scaled sum (usually > 0)"),
    AttrSpec("alpha", 1.0, _float, "the scale of the sum of squares"),
    AttrSpec("beta", 0.5, _float, "the exponent"),
)


def _lrn_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    if not x.shape:
        raise ShapeError("x must have at least one axis (channels last), got a 0-d input.")
    return [x]


def _lrn_grad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    dy, x, y = infos
    if not x.shape or dy.shape != x.shape or y.shape != x.shape:
        raise ShapeError(f"dy, x and y must have one shape of at least one axis, got {dy.shape}, "
                         f"{x.shape} and {y.shape}; pass the forward pass's tensors.")
    return [x]


LRN = declare_spec(KernelSpec(
    name="LRN", inputs=("x",), infer=_lrn_rule, input_dtypes={"x": FLOAT_DTYPES}, attrs=_LRN_ATTRS,
    doc="x / (bias + alpha * sum(x[..., c - r:c + r + 1] ** 2)) ** beta (TF's local response normalization)",
))
LRN_GRAD = declare_spec(KernelSpec(
    name="LRNGrad", inputs=("dy", "x", "y"), infer=_lrn_grad_rule,
    input_dtypes={n: FLOAT_DTYPES for n in ("dy", "x", "y")}, same_dtype=("dy", "x", "y"), attrs=_LRN_ATTRS,
    doc="the gradient of LRN at x (y = LRN(x), accepted as TF's signature has it) times dy",
))
