"""Kernel specs of the linear-algebra family: MatMul (with optional transposes, as TF.js's
BatchMatMul), on real and complex numbers. ``matmul_shape`` is its shape rule, shared with
``tp.matmul``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import ALL_NUMERIC_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, broadcast_shapes, op_prefix
from tensorplug.registry.core_entries import declare_spec


def matmul_shape(x_shape: Sequence[int], y_shape: Sequence[int], op: str | None = None, *,
                 transpose_x: bool = False, transpose_y: bool = False) -> tuple[int, ...]:
    """The shape of the matrix product of inputs of `x_shape` and `y_shape` (numpy's matmul
    rule): the last two axes multiply (each optionally transposed), leading axes broadcast, and
    a 1-d first (second) input acts as a row (column) vector whose axis the result drops.
    ShapeError naming `op` for 0-d inputs, contracted sizes that differ or batch axes that do
    not broadcast."""
    if not x_shape or not y_shape:
        raise ShapeError(f"{op_prefix(op)}0-d inputs are not matrices (shapes {tuple(x_shape)} and "
                         f"{tuple(y_shape)}); use multiply for scalars.")
    xs = (1, x_shape[0]) if len(x_shape) == 1 else tuple(x_shape)
    ys = (y_shape[0], 1) if len(y_shape) == 1 else tuple(y_shape)
    m, k = (xs[-1], xs[-2]) if transpose_x else (xs[-2], xs[-1])
    k_y, n = (ys[-1], ys[-2]) if transpose_y else (ys[-2], ys[-1])
    if k != k_y:
        x_axis = "only" if len(x_shape) == 1 else "second-to-last" if transpose_x else "last"
        y_axis = "only" if len(y_shape) == 1 else "last" if transpose_y else "second-to-last"
        x_axis += " axis of the first input" + (", transposed" if transpose_x else "")
        y_axis += " axis of the second" + (", transposed" if transpose_y else "")
        raise ShapeError(f"{op_prefix(op)}shapes {tuple(x_shape)} and {tuple(y_shape)} do not fit: "
                         f"{k} ({x_axis}) != {k_y} ({y_axis}); the contracted sizes must be equal.")
    batch = broadcast_shapes(xs[:-2], ys[:-2], op=op)
    return batch + ((m,) if len(x_shape) > 1 else ()) + ((n,) if len(y_shape) > 1 else ())


def _matmul_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    a, b = infos
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ShapeError(f"MatMul needs inputs with at least 2 dimensions, got {a.shape} and {b.shape} "
                         "(tp.matmul handles 1-d inputs)")
    shape = matmul_shape(a.shape, b.shape, transpose_x=attrs["transpose_x"],
                         transpose_y=attrs["transpose_y"])
    return [TensorInfo(shape, a.dtype)]


MATMUL = declare_spec(KernelSpec(
    name="MatMul", inputs=("x", "y"), infer=_matmul_rule, same_dtype=("x", "y"),
    attrs=(AttrSpec("transpose_x", False, as_bool, "use x with its last two axes swapped"),
           AttrSpec("transpose_y", False, as_bool, "use y with its last two axes swapped")),
    input_dtypes={"x": ALL_NUMERIC_DTYPES, "y": ALL_NUMERIC_DTYPES},
    doc="matrix product over the last two axes, either input optionally transposed (TF.js's "
        "BatchMatMul); leading (batch) axes broadcast",
))
