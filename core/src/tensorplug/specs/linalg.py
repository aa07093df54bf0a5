"""Kernel specs of the linear-algebra family: MatMul (with optional transposes, as TF.js's BatchMatMul)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..dtypes import NUMERIC_DTYPES
from ..errors import ShapeError
from ..kernel_spec import AttrSpec, KernelSpec, TensorInfo
from ..registry.specs import register_kernel_spec
from ._rules import as_bool, broadcast_shapes


def _matmul_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    a, b = infos
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ShapeError(f"MatMul needs inputs with at least 2 dimensions, got {a.shape} and {b.shape} "
                         "(tp.matmul handles 1-d inputs)")
    tx, ty = attrs["transpose_x"], attrs["transpose_y"]
    m, k = (a.shape[-1], a.shape[-2]) if tx else (a.shape[-2], a.shape[-1])
    k_y, n = (b.shape[-1], b.shape[-2]) if ty else (b.shape[-2], b.shape[-1])
    if k != k_y:
        x_axis = "second-to-last axis of x, transposed" if tx else "last axis of x"
        y_axis = "last axis of y, transposed" if ty else "second-to-last axis of y"
        raise ShapeError(f"matmul shapes {a.shape} and {b.shape} do not fit: {k} ({x_axis}) != "
                         f"{k_y} ({y_axis})")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return [TensorInfo(batch + (m, n), a.dtype)]


MATMUL = register_kernel_spec(KernelSpec(
    name="MatMul", inputs=("x", "y"), infer=_matmul_rule, same_dtype=("x", "y"),
    attrs=(AttrSpec("transpose_x", False, as_bool, "use x with its last two axes swapped"),
           AttrSpec("transpose_y", False, as_bool, "use y with its last two axes swapped")),
    input_dtypes={"x": NUMERIC_DTYPES, "y": NUMERIC_DTYPES},
    doc="matrix product over the last two axes, either input optionally transposed (TF.js's "
        "BatchMatMul); leading (batch) axes broadcast",
))
