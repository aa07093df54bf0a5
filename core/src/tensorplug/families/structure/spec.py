"""Kernel specs of the structure family (TF.js's kernels that rearrange, split or select without
arithmetic): Reverse, Tile, SplitV, Unpack, BroadcastArgs, Diag, MatrixBandPart, TopK.

SplitV and Unpack have as many outputs as their attributes and input give (``outputs=()``).
TopK returns the k largest values along the last axis, largest first (equal values in their
order, NaNs last as the sorting family orders them), with their int64 indices; ``sorted=False``
is accepted (TF's "any order") and gives the same sorted result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import NUMERIC_DTYPES, int32, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_int, normalize_axis, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["reversed_axes", "tiled_shape", "split_sizes", "band_bounds", "top_k_count"]

Shape = Sequence[int]


def _ints(value: Any) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    return tuple(as_int(v) for v in value)


def reversed_axes(shape: Shape, axes: Sequence[int], op: str | None = None) -> tuple[int, ...]:
    """`axes` of an input of `shape` made non-negative, sorted and distinct (ShapeError naming
    `op` for one out of range or named twice)."""
    out = tuple(normalize_axis(a, len(shape), op) for a in axes)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op_prefix(op)}axes {tuple(axes)} name an axis twice; name each axis once.")
    return tuple(sorted(out))


def _reverse_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    reversed_axes(infos[0].shape, attrs["axes"])
    return [infos[0]]


REVERSE = declare_spec(KernelSpec(
    name="Reverse", inputs=("x",), infer=_reverse_rule,
    attrs=(AttrSpec("axes", validate=_ints, doc="the axes to reverse"),),
    doc="x with the order of its elements reversed along `axes`",
))


def tiled_shape(shape: Shape, reps: Sequence[int], op: str | None = None) -> tuple[int, ...]:
    """The shape of an input of `shape` tiled `reps` times (one count >= 0 per axis)."""
    if len(reps) != len(shape) or any(r < 0 for r in reps):
        raise ShapeError(f"{op_prefix(op)}reps {tuple(reps)} must hold one count >= 0 per axis of "
                         f"shape {tuple(shape)}.")
    return tuple(d * r for d, r in zip(shape, reps))


def _tile_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(tiled_shape(x.shape, attrs["reps"]), x.dtype)]


TILE = declare_spec(KernelSpec(
    name="Tile", inputs=("x",), infer=_tile_rule,
    attrs=(AttrSpec("reps", validate=_ints, doc="how many copies along each axis"),),
    doc="x repeated reps[i] times along each axis i (np.tile with one count per axis)",
))


def split_sizes(shape: Shape, sizes: Sequence[int], axis: int, op: str | None = None) -> int:
    """The axis (made non-negative) SplitV cuts an input of `shape` along into parts of `sizes`;
    ShapeError naming `op` unless they are >= 0 and add up to the axis's size."""
    if not shape:
        raise ShapeError(f"{op_prefix(op)}cannot split a 0-d tensor; reshape it to (1,) first.")
    a = normalize_axis(axis, len(shape), op)
    if not sizes or any(s < 0 for s in sizes) or sum(sizes) != shape[a]:
        raise ShapeError(f"{op_prefix(op)}sizes {tuple(sizes)} must be one or more sizes >= 0 adding up "
                         f"to {shape[a]}, the size of axis {a} of shape {tuple(shape)}.")
    return a


def _split_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    a = split_sizes(x.shape, attrs["sizes"], attrs["axis"])
    return [TensorInfo(x.shape[:a] + (s,) + x.shape[a + 1:], x.dtype) for s in attrs["sizes"]]


SPLIT_V = declare_spec(KernelSpec(
    name="SplitV", inputs=("x",), outputs=(), infer=_split_rule,
    attrs=(AttrSpec("sizes", validate=_ints, doc="the size of each part (they add up to the axis)"),
           AttrSpec("axis", 0, as_int, "the axis to cut along")),
    doc="x cut along axis into consecutive parts of `sizes` (one output per size)",
))


def _unpack_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    if not x.shape:
        raise ShapeError("cannot unstack a 0-d tensor (it has no axis); reshape it to (1,) first.")
    a = normalize_axis(attrs["axis"], len(x.shape))
    return [TensorInfo(x.shape[:a] + x.shape[a + 1:], x.dtype)] * x.shape[a]


UNPACK = declare_spec(KernelSpec(
    name="Unpack", inputs=("x",), outputs=(), infer=_unpack_rule,
    attrs=(AttrSpec("axis", 0, as_int, "the axis to unstack along"),),
    doc="the slices of x along axis (one output per index, without that axis)",
))


def _broadcast_args_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    s0, s1 = infos
    if len(s0.shape) != 1 or len(s1.shape) != 1:
        raise ShapeError(f"shapes must be 1-d vectors of sizes, got shapes {s0.shape} and {s1.shape}.")
    return [TensorInfo((max(s0.shape[0], s1.shape[0]),), s0.dtype)]


BROADCAST_ARGS = declare_spec(KernelSpec(
    name="BroadcastArgs", inputs=("s0", "s1"), infer=_broadcast_args_rule, differentiable=False,
    input_dtypes={"s0": (int32, int64), "s1": (int32, int64)}, same_dtype=("s0", "s1"),
    doc="the broadcast shape of two shapes given as 1-d integer vectors: per axis (aligned from the "
        "right) the size that is not 1 (s0's where they clash: tp.broadcast_args refuses those)",
))


def _diag_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(x.shape + x.shape, x.dtype)]


DIAG = declare_spec(KernelSpec(
    name="Diag", inputs=("x",), infer=_diag_rule,
    doc="TF's Diag: out[i..., j...] = x[i...] where i... == j..., else 0 (a vector gives a "
        "diagonal matrix; shape x.shape + x.shape)",
))


def band_bounds(shape: Shape, op: str | None = None) -> tuple[int, int]:
    """(M, N) of the matrices MatrixBandPart works on; ShapeError naming `op` below 2-d."""
    if len(shape) < 2:
        raise ShapeError(f"{op_prefix(op)}x must be a matrix or a stack of matrices (at least 2-d), got "
                         f"shape {tuple(shape)}; reshape a vector to (1, n) first.")
    return shape[-2], shape[-1]


def _band_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    band_bounds(infos[0].shape)
    return [infos[0]]


MATRIX_BAND_PART = declare_spec(KernelSpec(
    name="MatrixBandPart", inputs=("x",), infer=_band_rule,
    attrs=(AttrSpec("num_lower", validate=as_int, doc="diagonals kept below the main one (< 0: all)"),
           AttrSpec("num_upper", validate=as_int, doc="diagonals kept above the main one (< 0: all)")),
    doc="each matrix of x kept in a band around its diagonal (-num_lower <= j - i <= num_upper), "
        "zeros outside",
))


def top_k_count(shape: Shape, k: int, op: str | None = None) -> int:
    """`k` if an input of `shape` has at least k elements along its last axis (k >= 0);
    ShapeError naming `op` otherwise."""
    if not shape:
        raise ShapeError(f"{op_prefix(op)}x is 0-d; top_k selects along the last axis, so reshape it "
                         "to (1,) first.")
    if not 0 <= k <= shape[-1]:
        raise ShapeError(f"{op_prefix(op)}k={k} must be in 0..{shape[-1]} (the size of the last axis of "
                         f"shape {tuple(shape)}).")
    return k


def _top_k_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    k = top_k_count(x.shape, attrs["k"])
    return [TensorInfo(x.shape[:-1] + (k,), x.dtype), TensorInfo(x.shape[:-1] + (k,), int64)]


TOP_K = declare_spec(KernelSpec(
    name="TopK", inputs=("x",), outputs=("values", "indices"), infer=_top_k_rule,
    input_dtypes={"x": NUMERIC_DTYPES},
    attrs=(AttrSpec("k", validate=as_int, doc="how many values to select"),
           AttrSpec("sorted", True, as_bool, "largest first (always done)")),
    doc="the k largest values along the last axis, largest first (ties in order, NaNs last), and "
        "their int64 indices",
))
