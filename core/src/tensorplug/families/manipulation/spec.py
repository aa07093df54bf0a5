"""Kernel specs of the shape-manipulation family: Reshape, Transpose, BroadcastTo, Concat,
Stack, Pad, Roll.

``reshaped_shape``, ``permutation``, ``broadcast_target``, ``concat_shape``, ``stack_shape``,
``padded_shape`` and ``rolled`` are the family's shape rules, shared with the manipulation ops: each
takes the public op asking (named in its messages) and returns what the op needs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.core.validate import shown_int, shown_shape
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import (
    as_int,
    as_scalar,
    as_shape,
    fitting_value,
    normalize_axis,
    op_prefix,
)
from tensorplug.registry.core_entries import declare_spec

Shape = Sequence[int]


def reshaped_shape(shape: Shape, new_shape: Shape, op: str | None = None) -> tuple[int, ...]:
    """`new_shape` for the elements of an input of `shape`, its one -1 (if any) inferred;
    ShapeError naming `op` if the sizes are invalid or do not multiply to the input's size."""
    new = list(new_shape)
    size = math.prod(shape)
    unknown = [i for i, d in enumerate(new) if d == -1]
    if len(unknown) > 1 or any(d < -1 for d in new):
        why = "it has more than one -1" if len(unknown) > 1 else "it has a size below -1"
        raise ShapeError(f"{op_prefix(op)}shape {shown_shape(new)} is invalid: {why}; sizes must be >= 0, "
                         "with at most one -1 (inferred).")
    known = math.prod(d for d in new if d != -1)
    if unknown:
        if known == 0 or size % known:
            raise ShapeError(f"{op_prefix(op)}cannot reshape {size} elements (shape {tuple(shape)}) "
                             f"into {shown_shape(new)}; the -1 cannot be inferred.")
        new[unknown[0]] = size // known
    elif known != size:
        raise ShapeError(f"{op_prefix(op)}cannot reshape {size} elements (shape {tuple(shape)}) into "
                         f"{shown_shape(new)} ({shown_int(known)} elements); the sizes must multiply to "
                         f"{size}.")
    return tuple(new)


def _reshape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(reshaped_shape(x.shape, attrs["shape"]), x.dtype)]


RESHAPE = declare_spec(KernelSpec(
    name="Reshape", inputs=("x",), infer=_reshape_rule,
    attrs=(AttrSpec("shape", validate=as_shape, doc="the new shape; one entry may be -1"),),
    doc="the same elements in a new shape (C order)",
))


def permutation(shape: Shape, axes: Sequence[int], op: str | None = None) -> tuple[int, ...]:
    """`axes` as a permutation of the axes of an input of `shape`, entries made non-negative;
    ShapeError naming `op` (and what is wrong) if it is not one."""
    ndim = len(shape)
    perm = tuple(axes)
    outside = [a for a in perm if not -ndim <= a < ndim]
    why = ""
    if len(perm) != ndim:
        why = f"it has {len(perm)} {'entry' if len(perm) == 1 else 'entries'}"
    elif outside:
        why = f"axis {outside[0]} is out of range (valid: {-ndim}..{ndim - 1})"
    elif len({a % ndim for a in perm}) != ndim:
        why = "it names an axis twice"
    if why:
        raise ShapeError(f"{op_prefix(op)}axes {perm} is not a permutation of the {ndim} axes of "
                         f"shape {tuple(shape)}: {why}; give each axis exactly once (negative "
                         "entries count from the end).")
    return tuple(a % ndim for a in perm)


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(as_int(a) for a in value)


def _transpose_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(tuple(x.shape[a] for a in permutation(x.shape, attrs["perm"])), x.dtype)]


TRANSPOSE = declare_spec(KernelSpec(
    name="Transpose", inputs=("x",), infer=_transpose_rule,
    attrs=(AttrSpec("perm", validate=_ints, doc="a permutation of the axes"),),
    doc="axes permuted: output axis i is input axis perm[i]",
))


def broadcast_target(shape: Shape, target: Shape, op: str | None = None) -> tuple[int, ...]:
    """`target` if an input of `shape` broadcasts to it (numpy rules, aligned from the right);
    ShapeError naming `op` and the first axis that does not fit otherwise."""
    target = tuple(target)
    why = ""
    if len(target) < len(shape):
        why = f"the target has fewer axes ({len(target)}) than x ({len(shape)})"
    else:
        for i in range(-1, -len(shape) - 1, -1):
            if shape[i] not in (1, target[i]):
                why = f"axis {i} has size {shape[i]}, which is neither 1 nor {target[i]}"
                break
    if why:
        raise ShapeError(f"{op_prefix(op)}cannot broadcast shape {tuple(shape)} to {target}: {why}; "
                         "each axis of x must be 1 or equal the target size (aligned from the right).")
    return target


def _broadcast_to_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo(broadcast_target(x.shape, attrs["shape"]), x.dtype)]


BROADCAST_TO = declare_spec(KernelSpec(
    name="BroadcastTo", inputs=("x",), infer=_broadcast_to_rule,
    attrs=(AttrSpec("shape", validate=as_shape, doc="the target shape"),),
    doc="x broadcast to `shape`",
))


def concat_shape(shapes: Sequence[Shape], axis: int, op: str | None = None) -> tuple[int, tuple[int, ...]]:
    """(the axis made non-negative, the output shape) of joining inputs of `shapes` along
    `axis`; ShapeError naming `op` for 0-d inputs, a bad axis or sizes that differ elsewhere."""
    first = tuple(shapes[0])
    if not first:
        raise ShapeError(f"{op_prefix(op)}cannot join 0-d tensors (they have no axis); use stack, "
                         "or flatten them first.")
    a = normalize_axis(axis, len(first), op)
    for i, s in enumerate(shapes):
        if len(s) != len(first) or any(p != q for k, (p, q) in enumerate(zip(s, first)) if k != a):
            raise ShapeError(f"{op_prefix(op)}input {i} has shape {tuple(s)}, which does not match "
                             f"input 0's shape {first} outside axis {a}; all other sizes must be equal.")
    out = list(first)
    out[a] = sum(s[a] for s in shapes)
    return a, tuple(out)


def _concat_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    _, shape = concat_shape([i.shape for i in infos], attrs["axis"])
    return [TensorInfo(shape, infos[0].dtype)]


CONCAT = declare_spec(KernelSpec(
    name="Concat", inputs=("xs",), infer=_concat_rule, variadic=True, same_dtype=("xs",),
    attrs=(AttrSpec("axis", 0, as_int, "the axis to join along"),),
    doc="tensors joined along an existing axis",
))


def stack_shape(shapes: Sequence[Shape], axis: int, op: str | None = None) -> tuple[int, tuple[int, ...]]:
    """(the new axis made non-negative, the output shape) of stacking inputs of `shapes`
    along a new axis at `axis`; ShapeError naming `op` for unequal shapes or a bad axis."""
    first = tuple(shapes[0])
    for i, s in enumerate(shapes):
        if tuple(s) != first:
            raise ShapeError(f"{op_prefix(op)}inputs must have equal shapes; input {i} has "
                             f"{tuple(s)}, input 0 has {first}.")
    a = normalize_axis(axis, len(first) + 1, op)
    out = list(first)
    out.insert(a, len(shapes))
    return a, tuple(out)


def _stack_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    _, shape = stack_shape([i.shape for i in infos], attrs["axis"])
    return [TensorInfo(shape, infos[0].dtype)]


STACK = declare_spec(KernelSpec(
    name="Stack", inputs=("xs",), infer=_stack_rule, variadic=True, same_dtype=("xs",),
    attrs=(AttrSpec("axis", 0, as_int, "the position of the new axis"),),
    doc="tensors of one shape joined along a new axis",
))


def padded_shape(shape: Shape, pad_width: Sequence[tuple[int, int]],
                 op: str | None = None) -> tuple[int, ...]:
    """The shape of an input of `shape` padded by `pad_width`, one (before, after) pair per
    axis; ShapeError naming `op` for a wrong number of pairs or a negative width."""
    pairs = tuple(tuple(p) for p in pad_width)
    if len(pairs) != len(shape):
        raise ShapeError(f"{op_prefix(op)}pad_width has {len(pairs)} pairs for a {len(shape)}-d "
                         "input; give one (before, after) pair per axis.")
    if any(lo < 0 or hi < 0 for lo, hi in pairs):
        raise ShapeError(f"{op_prefix(op)}pad widths must be >= 0, got {pairs}.")
    return tuple(d + lo + hi for d, (lo, hi) in zip(shape, pairs))


def _pad_width(value: Any) -> tuple[tuple[int, int], ...]:
    return tuple((as_int(lo), as_int(hi)) for lo, hi in value)


def _pad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    fitting_value(attrs["constant_value"], x.dtype, "constant_value")
    return [TensorInfo(padded_shape(x.shape, attrs["pad_width"]), x.dtype)]


PAD = declare_spec(KernelSpec(
    name="Pad", inputs=("x",), infer=_pad_rule,
    attrs=(AttrSpec("pad_width", validate=_pad_width, doc="one (before, after) pair per axis"),
           AttrSpec("constant_value", 0.0, as_scalar, "the fill value (x's dtype must hold it)")),
    doc="x padded with a constant",
))


def rolled(shape: Shape, shift: Sequence[int], axis: Sequence[int],
           op: str | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shifts, axes) of rolling an input of `shape` by `shift` along `axis` (one shift for
    every axis, or one each), normalized: each axis once, non-negative and in order (shifts
    along an axis named twice add up), each shift modulo its axis's size, zero shifts left
    out. ShapeError naming `op` for lengths that differ, a 0-d input or an axis out of range."""
    shifts, axes = tuple(shift), tuple(axis)
    if len(shifts) == 1:
        shifts *= len(axes)
    if len(shifts) != len(axes):
        raise ShapeError(f"{op_prefix(op)}shift {tuple(shift)} and axis {axes} must have the same "
                         "length; give one shift per axis, or one shift for all of them.")
    if not shape and axes:
        raise ShapeError(f"{op_prefix(op)}a 0-d input has no axis to roll along; roll it "
                         "flattened (axis=None), or name no axis.")
    total: dict[int, int] = {}
    for s, ax in zip(shifts, axes):
        a = normalize_axis(ax, len(shape), op)
        total[a] = total.get(a, 0) + s
    kept = sorted((a, s % shape[a]) for a, s in total.items() if shape[a] and s % shape[a])
    return tuple(s for _, s in kept), tuple(a for a, _ in kept)


def _roll_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    rolled(x.shape, attrs["shift"], attrs["axis"])
    return [x]


ROLL = declare_spec(KernelSpec(
    name="Roll", inputs=("x",), infer=_roll_rule,
    attrs=(AttrSpec("shift", validate=_ints, doc="the shift along each axis (wrapping around)"),
           AttrSpec("axis", validate=_ints, doc="the axes to roll along, one per shift")),
    doc="x with elements shifted along axes, wrapping around",
))
