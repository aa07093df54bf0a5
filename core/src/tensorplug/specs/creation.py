"""Kernel specs of the creation family (no tensor inputs): Fill, Range, Eye, RandomUniform,
RandomNormal. Random kernels take an explicit integer seed; the same seed gives the same
values on one backend (streams differ between backends)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..dtypes import FLOAT_DTYPES, float32
from ..errors import DTypeError, ShapeError
from ..kernel_spec import AttrSpec, KernelSpec, TensorInfo
from ..registry.specs import register_kernel_spec
from ._rules import as_dtype_attr, as_int, as_shape


def _shape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    if any(d < 0 for d in attrs["shape"]):
        raise ShapeError(f"shape {attrs['shape']} has a negative size")
    return [TensorInfo(tuple(attrs["shape"]), attrs["dtype"])]


def _float_shape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    if attrs["dtype"] not in FLOAT_DTYPES:
        raise DTypeError(f"random values need a floating dtype, got {attrs['dtype'].name}")
    return _shape_rule(infos, attrs)


_SHAPE = AttrSpec("shape", validate=as_shape, doc="the output shape")
_DTYPE = AttrSpec("dtype", float32, as_dtype_attr, "the output dtype")

FILL = register_kernel_spec(KernelSpec(
    name="Fill", inputs=(), infer=_shape_rule, differentiable=False,
    attrs=(_SHAPE, AttrSpec("value", validate=lambda v: v, doc="a Python scalar"), _DTYPE),
    doc="a tensor of `shape` filled with `value`",
))


def _range_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if step == 0:
        raise ShapeError("arange step cannot be zero")
    return [TensorInfo((max(0, math.ceil((stop - start) / step)),), attrs["dtype"])]


RANGE = register_kernel_spec(KernelSpec(
    name="Range", inputs=(), infer=_range_rule, differentiable=False,
    attrs=(AttrSpec("start", 0), AttrSpec("stop"), AttrSpec("step", 1), _DTYPE),
    doc="evenly spaced values in [start, stop)",
))


def _eye_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    n, m = attrs["n_rows"], attrs["n_cols"]
    if n < 0 or m < 0:
        raise ShapeError(f"eye needs non-negative sizes, got {n} x {m}")
    return [TensorInfo((n, m), attrs["dtype"])]


EYE = register_kernel_spec(KernelSpec(
    name="Eye", inputs=(), infer=_eye_rule, differentiable=False,
    attrs=(AttrSpec("n_rows", validate=as_int), AttrSpec("n_cols", validate=as_int),
           AttrSpec("k", 0, as_int, "diagonal offset"), _DTYPE),
    doc="ones on the k-th diagonal, zeros elsewhere",
))

_SEED = AttrSpec("seed", validate=as_int, doc="an explicit integer seed")
RANDOM_UNIFORM = register_kernel_spec(KernelSpec(
    name="RandomUniform", inputs=(), infer=_float_shape_rule, differentiable=False,
    attrs=(_SHAPE, _SEED, AttrSpec("low", 0.0, float), AttrSpec("high", 1.0, float), _DTYPE),
    doc="uniform samples in [low, high)",
))
RANDOM_NORMAL = register_kernel_spec(KernelSpec(
    name="RandomNormal", inputs=(), infer=_float_shape_rule, differentiable=False,
    attrs=(_SHAPE, _SEED, AttrSpec("mean", 0.0, float), AttrSpec("stddev", 1.0, float), _DTYPE),
    doc="normal samples with the given mean and standard deviation",
))
