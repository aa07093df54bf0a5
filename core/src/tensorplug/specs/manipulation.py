"""Kernel specs of the shape-manipulation family: Reshape, Transpose, BroadcastTo, Concat,
Stack, Pad."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ShapeError
from ..kernel_spec import AttrSpec, KernelSpec, TensorInfo
from ..registry.specs import register_kernel_spec
from ._rules import as_int, as_shape, broadcast_shapes, normalize_axis


def _reshape_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    shape = list(attrs["shape"])
    size = math.prod(x.shape)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise ShapeError(f"new shape {tuple(shape)} has more than one -1")
    known = math.prod(d for d in shape if d != -1)
    if unknown:
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape {size} elements (shape {x.shape}) into {tuple(shape)}")
        shape[unknown[0]] = size // known
    elif known != size:
        raise ShapeError(f"cannot reshape {size} elements (shape {x.shape}) into {tuple(shape)} "
                         f"({known} elements)")
    return [TensorInfo(tuple(shape), x.dtype)]


RESHAPE = register_kernel_spec(KernelSpec(
    name="Reshape", inputs=("x",), infer=_reshape_rule,
    attrs=(AttrSpec("shape", validate=as_shape, doc="the new shape; one entry may be -1"),),
    doc="the same elements in a new shape (C order)",
))


def _perm(value: Any) -> tuple[int, ...]:
    return tuple(as_int(a) for a in value)


def _transpose_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    perm = attrs["perm"]
    n = len(x.shape)
    if len(perm) != n or any(not -n <= a < n for a in perm) or sorted(a % n for a in perm) != list(range(n)):
        raise ShapeError(f"perm {perm} is not a permutation of the {len(x.shape)} axes of shape {x.shape}")
    return [TensorInfo(tuple(x.shape[a] for a in perm), x.dtype)]


TRANSPOSE = register_kernel_spec(KernelSpec(
    name="Transpose", inputs=("x",), infer=_transpose_rule,
    attrs=(AttrSpec("perm", validate=_perm, doc="a permutation of the axes"),),
    doc="axes permuted: output axis i is input axis perm[i]",
))


def _broadcast_to_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    shape = tuple(attrs["shape"])
    if len(shape) < len(x.shape) or broadcast_shapes(x.shape, shape) != shape:
        raise ShapeError(f"cannot broadcast shape {x.shape} to {shape}")
    return [TensorInfo(shape, x.dtype)]


BROADCAST_TO = register_kernel_spec(KernelSpec(
    name="BroadcastTo", inputs=("x",), infer=_broadcast_to_rule,
    attrs=(AttrSpec("shape", validate=as_shape, doc="the target shape"),),
    doc="x broadcast to `shape`",
))


def _concat_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    first = infos[0]
    if not first.shape:
        raise ShapeError("cannot concatenate 0-d tensors; use stack")
    axis = normalize_axis(attrs["axis"], len(first.shape))
    for i, info in enumerate(infos):
        if len(info.shape) != len(first.shape) or any(
            a != b for k, (a, b) in enumerate(zip(info.shape, first.shape)) if k != axis
        ):
            raise ShapeError(f"input {i} has shape {info.shape}, which does not match {first.shape} "
                             f"outside axis {axis}")
    shape = list(first.shape)
    shape[axis] = sum(i.shape[axis] for i in infos)
    return [TensorInfo(tuple(shape), first.dtype)]


CONCAT = register_kernel_spec(KernelSpec(
    name="Concat", inputs=("xs",), infer=_concat_rule, variadic=True, same_dtype=("xs",),
    attrs=(AttrSpec("axis", 0, as_int, "the axis to join along"),),
    doc="tensors joined along an existing axis",
))


def _stack_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    first = infos[0]
    for i, info in enumerate(infos):
        if info.shape != first.shape:
            raise ShapeError(f"stack needs equal shapes; input {i} has {info.shape}, "
                             f"input 0 has {first.shape}")
    axis = normalize_axis(attrs["axis"], len(first.shape) + 1)
    shape = list(first.shape)
    shape.insert(axis, len(infos))
    return [TensorInfo(tuple(shape), first.dtype)]


STACK = register_kernel_spec(KernelSpec(
    name="Stack", inputs=("xs",), infer=_stack_rule, variadic=True, same_dtype=("xs",),
    attrs=(AttrSpec("axis", 0, as_int, "the position of the new axis"),),
    doc="tensors of one shape joined along a new axis",
))


def _pad_width(value: Any) -> tuple[tuple[int, int], ...]:
    out = tuple((as_int(lo), as_int(hi)) for lo, hi in value)
    if any(lo < 0 or hi < 0 for lo, hi in out):
        raise ValueError(f"pad widths must be >= 0, got {out}")
    return out


def _pad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    pw = attrs["pad_width"]
    if len(pw) != len(x.shape):
        raise ShapeError(f"pad_width has {len(pw)} pairs for a {len(x.shape)}-d input; give one "
                         "(before, after) pair per axis")
    return [TensorInfo(tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, pw)), x.dtype)]


PAD = register_kernel_spec(KernelSpec(
    name="Pad", inputs=("x",), infer=_pad_rule,
    attrs=(AttrSpec("pad_width", validate=_pad_width, doc="one (before, after) pair per axis"),
           AttrSpec("constant_value", 0.0, float, "the fill value")),
    doc="x padded with a constant",
))
