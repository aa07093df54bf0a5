"""Kernel specs of the linear-algebra family: MatMul."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..dtypes import NUMERIC_DTYPES
from ..errors import ShapeError
from ..registry.specs import register_kernel_spec
from ._rules import broadcast_shapes
from ..kernel_spec import KernelSpec, TensorInfo


def _matmul_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    a, b = infos
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ShapeError(f"MatMul needs inputs with at least 2 dimensions, got {a.shape} and {b.shape} "
                         "(tp.matmul handles 1-d inputs)")
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"matmul shapes {a.shape} and {b.shape} do not fit: {a.shape[-1]} "
                         f"(last axis of x) != {b.shape[-2]} (second-to-last axis of y)")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return [TensorInfo(batch + (a.shape[-2], b.shape[-1]), a.dtype)]


MATMUL = register_kernel_spec(KernelSpec(
    name="MatMul", inputs=("x", "y"), infer=_matmul_rule, same_dtype=("x", "y"),
    input_dtypes={"x": NUMERIC_DTYPES, "y": NUMERIC_DTYPES},
    doc="matrix product over the last two axes; leading (batch) axes broadcast",
))
