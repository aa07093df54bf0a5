"""Kernel specs of the creation family: Fill, Range, Eye, RandomUniform, RandomNormal (no tensor
inputs), and Threefry2x32, the hash random keys are drawn with (``keys.py``). Random kernels take
an explicit integer seed; the same seed gives the same values on one backend (streams differ
between backends); a key gives the same bits on every backend.

``random_dtype`` and ``range_length`` are the family's rules, shared with the creation and
random ops; ``created_shape`` is the kernels' check of a shape (the ops check theirs earlier,
naming the argument, with ``families/creation/ops.py``'s ``new_shape``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES, DType, float32, uint32
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import (
    as_dtype_attr,
    as_int,
    as_scalar,
    as_shape,
    broadcast_shapes,
    fitting_value,
    op_prefix,
)
from tensorplug.registry.core_entries import declare_spec


def created_shape(shape: tuple[int, ...], op: str | None = None) -> tuple[int, ...]:
    """`shape` as the shape of a new tensor; ShapeError naming `op` for a negative size."""
    if any(d < 0 for d in shape):
        raise ShapeError(f"{op_prefix(op)}shape {shape} has a negative size; sizes must be >= 0.")
    return shape


def random_dtype(dtype: DType, op: str | None = None) -> DType:
    """`dtype` as the dtype of random samples; DTypeError naming `op` unless it is floating."""
    if dtype not in FLOAT_DTYPES:
        raise DTypeError(f"{op_prefix(op)}random values need a floating dtype, got {dtype.name}; use "
                         "tp.float32 or tp.float64 (and cast afterwards if needed).")
    return dtype


def _shape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(created_shape(tuple(attrs["shape"])), attrs["dtype"])]


def _fill_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    fitting_value(attrs["value"], attrs["dtype"], "fill value")
    return _shape_rule(infos, attrs)


def _float_shape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(created_shape(tuple(attrs["shape"])), random_dtype(attrs["dtype"]))]


_SHAPE = AttrSpec("shape", validate=as_shape, doc="the output shape")
_DTYPE = AttrSpec("dtype", float32, as_dtype_attr, "the output dtype")

FILL = declare_spec(KernelSpec(
    name="Fill", inputs=(), infer=_fill_rule, differentiable=False,
    attrs=(_SHAPE, AttrSpec("value", validate=as_scalar, doc="a Python scalar the dtype holds"), _DTYPE),
    doc="a tensor of `shape` filled with `value`",
))


def range_length(start: Any, stop: Any, step: Any, op: str | None = None) -> int:
    """The number of values in [start, stop) by `step`; ShapeError naming `op` for a zero step."""
    if step == 0:
        raise ShapeError(f"{op_prefix(op)}step cannot be zero; give a positive step to count up, "
                         "a negative one to count down.")
    return max(0, math.ceil((stop - start) / step))


def range_dtype(dtype: DType, op: str | None = None) -> DType:
    """`dtype` as the dtype of a range; DTypeError naming `op` for a complex one."""
    if dtype.is_complex:
        raise DTypeError(f"{op_prefix(op)}a range needs a real dtype, got {dtype.name}; use an "
                         "integer or real floating dtype (and cast afterwards if needed).")
    return dtype


def checked_range(start: Any, stop: Any, step: Any, dtype: DType, op: str | None = None) -> int:
    """The length of the range (``range_length``), after checking that `dtype` is real and holds
    its first and last values (DTypeError naming `op` otherwise)."""
    range_dtype(dtype, op)
    n = range_length(start, stop, step, op)
    if n:
        fitting_value(start, dtype, "start", op)
        fitting_value(start + (n - 1) * step, dtype, "last value", op)
    return n


def _range_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo((checked_range(attrs["start"], attrs["stop"], attrs["step"], attrs["dtype"]),),
                       attrs["dtype"])]


RANGE = declare_spec(KernelSpec(
    name="Range", inputs=(), infer=_range_rule, differentiable=False,
    attrs=(AttrSpec("start", 0), AttrSpec("stop"), AttrSpec("step", 1), _DTYPE),
    doc="evenly spaced values in [start, stop)",
))


def _eye_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    n, m = attrs["n_rows"], attrs["n_cols"]
    if n < 0 or m < 0:
        raise ShapeError(f"eye needs non-negative sizes, got {n} x {m}")
    return [TensorInfo((n, m), attrs["dtype"])]


EYE = declare_spec(KernelSpec(
    name="Eye", inputs=(), infer=_eye_rule, differentiable=False,
    attrs=(AttrSpec("n_rows", validate=as_int), AttrSpec("n_cols", validate=as_int),
           AttrSpec("k", 0, as_int, "diagonal offset"), _DTYPE),
    doc="ones on the k-th diagonal, zeros elsewhere",
))

_SEED = AttrSpec("seed", validate=as_int, doc="an explicit integer seed")
RANDOM_UNIFORM = declare_spec(KernelSpec(
    name="RandomUniform", inputs=(), infer=_float_shape_rule, differentiable=False,
    attrs=(_SHAPE, _SEED, AttrSpec("low", 0.0, float), AttrSpec("high", 1.0, float), _DTYPE),
    doc="uniform samples in [low, high)",
))
RANDOM_NORMAL = declare_spec(KernelSpec(
    name="RandomNormal", inputs=(), infer=_float_shape_rule, differentiable=False,
    attrs=(_SHAPE, _SEED, AttrSpec("mean", 0.0, float), AttrSpec("stddev", 1.0, float), _DTYPE),
    doc="normal samples with the given mean and standard deviation",
))


def _threefry_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    shape = broadcast_shapes(*(i.shape for i in infos))
    return [TensorInfo(shape, uint32), TensorInfo(shape, uint32)]


_WORDS = ("k1", "k2", "x1", "x2")
THREEFRY2X32 = declare_spec(KernelSpec(
    name="Threefry2x32", inputs=_WORDS, outputs=("y1", "y2"), infer=_threefry_rule,
    input_dtypes=dict.fromkeys(_WORDS, (uint32,)), same_dtype=_WORDS, differentiable=False,
    doc="Threefry-2x32 (20 rounds) of the key words (k1, k2) over the counter words (x1, x2), "
        "uint32 tensors that broadcast together: the two uint32 output words, as JAX's "
        "threefry2x32_p (adds wrap modulo 2**32)",
))
