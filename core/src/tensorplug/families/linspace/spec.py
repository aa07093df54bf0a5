"""Kernel spec of LinSpace (TF.js's kernel, the Array API's ``linspace``): `num` evenly spaced
values from start to stop (stop included when ``endpoint``), computed in double precision and
rounded once to the output dtype, so the first value is start and the last stop, exactly."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import DType
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_dtype_attr, as_int, as_scalar, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["LINSPACE", "linspace_dtype"]


def linspace_dtype(dtype: DType, complex_ends: bool, op: str | None = None) -> DType:
    """`dtype` if it holds the values: floating (complex for complex ends); DTypeError naming `op`."""
    if not dtype.is_inexact or (complex_ends and not dtype.is_complex):
        raise DTypeError(f"{op_prefix(op)}dtype must be a floating dtype (complex for complex start or "
                         f"stop), got {dtype.name}.")
    return dtype


def _rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    num = attrs["num"]
    if num < 0:
        raise ShapeError(f"num must be >= 0, got {num}.")
    complex_ends = isinstance(attrs["start"], complex) or isinstance(attrs["stop"], complex)
    return [TensorInfo((num,), linspace_dtype(attrs["dtype"], complex_ends))]


LINSPACE = declare_spec(KernelSpec(
    name="LinSpace", inputs=(), infer=_rule, differentiable=False,
    attrs=(AttrSpec("start", validate=as_scalar), AttrSpec("stop", validate=as_scalar),
           AttrSpec("num", validate=as_int, doc="how many values"),
           AttrSpec("endpoint", True, as_bool, "whether stop is the last value"),
           AttrSpec("dtype", validate=as_dtype_attr)),
    doc="num evenly spaced values from start to stop (included if endpoint), exact at both ends",
))
