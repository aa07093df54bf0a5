"""Shape-manipulation ops (Python Array API names): reshape, permute_dims, matrix_transpose,
broadcast_to, broadcast_arrays, concat, stack, unstack, expand_dims, squeeze, flip, roll,
moveaxis, tile, repeat, and numpy's pad."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, DTypeError, IndexOutOfRangeError, OutOfMemoryError, ShapeError
from tensorplug.families._common.axes import promote_all
from tensorplug.families._common.convert import asarray, caller
from tensorplug.families.layout.ops import mirror_pad
from tensorplug.families.manipulation.spec import (
    broadcast_target,
    concat_shape,
    padded_shape,
    permutation,
    reshaped_shape,
    rolled,
    stack_shape,
)
from tensorplug.kernels.shape_rules import broadcast_shapes, fill_number, normalize_axes, normalize_axis

__all__ = [
    "broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "matrix_transpose",
    "moveaxis", "pad", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile",
    "unstack",
]

_RESHAPE = caller("Reshape")
_TRANSPOSE = caller("Transpose")
_BROADCAST_TO = caller("BroadcastTo")
_CONCAT = caller("Concat")
_STACK = caller("Stack")
_PAD = caller("Pad")
_GATHER = caller("Gather")
_ROLL = caller("Roll")
_REVERSE = caller("Reverse")
_TILE = caller("Tile")
_UNPACK = caller("Unpack")

Shape = Sequence[int]


def _ints(op: str, what: str, values: Any) -> tuple[int, ...]:
    if isinstance(values, int) and not isinstance(values, bool):
        values = (values,)
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise DTypeError(f"{op}: {what} must be an int or a sequence of ints, got {values!r}.") from None


def reshape(x: Any, /, shape: int | Shape, *, copy: bool | None = None) -> Tensor:
    """The elements of x (C order) in a new shape; one entry may be -1 (inferred). `copy` is
    accepted for the Array API and ignored (tensors are immutable)."""
    x = asarray(x)
    target = reshaped_shape(x.shape, _ints("reshape", "shape", shape), "reshape")
    if target == x.shape:
        return x
    valid.checked_size(target, x._backend, "reshape")
    return _RESHAPE((x,), {"shape": target})


def permute_dims(x: Any, /, axes: Shape) -> Tensor:
    """x with its axes permuted: output axis i is input axis axes[i]."""
    x = asarray(x)
    norm = permutation(x.shape, _ints("permute_dims", "axes", axes), "permute_dims")
    if norm == tuple(range(len(norm))):
        return x
    return _TRANSPOSE((x,), {"perm": norm})


def matrix_transpose(x: Any, /) -> Tensor:
    """x with its last two axes swapped (a stack of transposed matrices)."""
    x = asarray(x)
    ndim = x.ndim
    if ndim < 2:
        raise ShapeError(f"matrix_transpose needs at least 2 dimensions, got shape {x.shape}; "
                         "use reshape or expand_dims to make a matrix.")
    return _TRANSPOSE((x,), {"perm": (*range(ndim - 2), ndim - 1, ndim - 2)})


def broadcast_to(x: Any, /, shape: Shape) -> Tensor:
    """x broadcast to `shape` (numpy rules)."""
    x = asarray(x)
    target = broadcast_target(x.shape, _ints("broadcast_to", "shape", shape), "broadcast_to")
    if target == x.shape:
        return x
    valid.checked_size(target, x._backend, "broadcast_to")
    return _BROADCAST_TO((x,), {"shape": target})


def broadcast_arrays(*arrays: Any) -> tuple[Tensor, ...]:
    """The arrays broadcast against each other (dtypes unchanged), as a tuple (2025.12)."""
    tensors = [asarray(a) for a in arrays]
    shape = broadcast_shapes(*(t.shape for t in tensors), op="broadcast_arrays")
    return tuple(broadcast_to(t, shape) for t in tensors)


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Tensor:
    """The arrays joined along an existing axis (flattened first if axis is None); dtypes promote."""
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise ShapeError("concat takes a non-empty sequence (list or tuple) of arrays.")
    tensors, _ = promote_all(arrays)
    if axis is None:
        tensors = [reshape(t, (-1,)) for t in tensors]
        axis = 0
    a, _ = concat_shape([t.shape for t in tensors], axis, "concat")
    if len(tensors) == 1:
        return tensors[0]
    return _CONCAT(tuple(tensors), {"axis": a})


def stack(arrays: Sequence[Any], /, *, axis: int = 0) -> Tensor:
    """The arrays (all of one shape) joined along a new axis at position `axis`; dtypes promote."""
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise ShapeError("stack takes a non-empty sequence (list or tuple) of arrays.")
    tensors, _ = promote_all(arrays)
    a, shape = stack_shape([t.shape for t in tensors], axis, "stack")
    valid.checked_size(shape, tensors[0]._backend, "stack")
    return _STACK(tuple(tensors), {"axis": a})


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    """The slices of x along `axis`, as a tuple of tensors (one fewer dimension each)."""
    x = asarray(x)
    shape = x.shape
    if not shape:
        raise ShapeError("unstack needs at least one dimension, got a 0-d tensor.")
    a = normalize_axis(axis, len(shape), "unstack")
    return tuple(_UNPACK((x,), {"axis": a}))


def expand_dims(x: Any, /, axis: int | Shape = 0) -> Tensor:
    """x with size-1 axes inserted at `axis` (positions in the output; negative allowed)."""
    x = asarray(x)
    shape = x.shape
    added = len(axis) if isinstance(axis, (list, tuple)) else 1
    n = len(shape) + added
    for a in axis if isinstance(axis, (list, tuple)) else (axis,):
        if isinstance(a, int) and not -n <= a < n:  # the standard: an IndexError
            raise IndexOutOfRangeError(
                f"expand_dims: axis {a} is out of range for a {len(shape)}-d input with {added} "
                f"axis inserted (valid: {-n}..{n - 1}, positions in the output).")
    axes = normalize_axes(axis, n, "expand_dims")
    out = list(shape)
    for a in axes:
        out.insert(a, 1)
    valid.checked_size(tuple(out), x._backend, "expand_dims")
    return _RESHAPE((x,), {"shape": tuple(out)})


def squeeze(x: Any, /, axis: int | Shape | None = None) -> Tensor:
    """x without the size-1 axes `axis` (all size-1 axes if None); other sizes are an error."""
    x = asarray(x)
    shape = x.shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = normalize_axes(axis, len(shape), "squeeze")
        bad = [a for a in axes if shape[a] != 1]
        if bad:
            raise ShapeError(f"squeeze: axis {bad[0]} of shape {shape} has size {shape[bad[0]]}, "
                             "not 1; only size-1 axes can be removed.")
    if not axes:
        return x
    return _RESHAPE((x,), {"shape": tuple(d for i, d in enumerate(shape) if i not in axes)})


def flip(x: Any, /, *, axis: int | Shape | None = None) -> Tensor:
    """x with the order of elements reversed along `axis` (all axes if None)."""
    x = asarray(x)
    shape = x.shape
    axes = normalize_axes(axis, len(shape), "flip")
    axes = tuple(a for a in axes if shape[a] > 1)
    return _REVERSE((x,), {"axes": axes}) if axes else x


def roll(x: Any, /, shift: int | Shape, *, axis: int | Shape | None = None) -> Tensor:
    """x with elements shifted by `shift` along `axis`, wrapping around (flattened if None)."""
    x = asarray(x)
    shape = x.shape
    flat = axis is None and len(shape) != 1
    t = _RESHAPE((x,), {"shape": (math.prod(shape),)}) if flat else x
    shifts, axes = rolled(t.shape, _ints("roll", "shift", shift),
                          _ints("roll", "axis", 0 if axis is None else axis), "roll")
    out = _ROLL((t,), {"shift": shifts, "axis": axes}) if axes else t
    return _RESHAPE((out,), {"shape": shape}) if flat else out


def moveaxis(x: Any, source: int | Shape, destination: int | Shape, /) -> Tensor:
    """x with axes `source` moved to positions `destination` (others keep their order)."""
    x = asarray(x)
    ndim = x.ndim
    src = [normalize_axis(a, ndim, "moveaxis") for a in _ints("moveaxis", "source", source)]
    dst = [normalize_axis(a, ndim, "moveaxis") for a in _ints("moveaxis", "destination", destination)]
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ShapeError(f"moveaxis: source {source!r} and destination {destination!r} must name "
                         "the same number of distinct axes.")
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, order)


def _pad_pairs(pad_width: Any, ndim: int) -> tuple[tuple[int, int], ...]:
    try:
        arr = np.asarray(pad_width.numpy() if isinstance(pad_width, Tensor) else pad_width)
    except ValueError:  # a ragged nesting of sequences
        arr = np.asarray(None)
    if arr.dtype.kind not in "iu" and arr.size:
        raise DTypeError(f"pad: pad_width must hold ints, got {valid.shown(pad_width)}.")
    arr = arr.astype(np.int64)
    pair = arr.ndim == 1 and arr.shape[0] in (1, 2)
    per_axis = arr.ndim == 2 and arr.shape[0] in (1, ndim) and arr.shape[1] in (1, 2)
    if arr.ndim == 0 or pair or per_axis:
        arr = np.broadcast_to(arr, (ndim, 2))
    else:
        raise ShapeError(f"pad: pad_width {pad_width!r} does not fit a {ndim}-d input; give an int, "
                         f"a (before, after) pair, or {ndim} pairs.")
    return tuple((int(lo), int(hi)) for lo, hi in arr)


def pad(x: Any, /, pad_width: Any, mode: str = "constant",
        constant_values: bool | int | float = 0) -> Tensor:
    """x padded with `constant_values` (mode 'constant'), or with its mirror image ('reflect':
    the edge not repeated, 'symmetric': repeated); pad_width is an int, a (before, after) pair,
    or one pair per axis (numpy's forms)."""
    x = asarray(x)
    pairs = _pad_pairs(pad_width, x.ndim)
    if not isinstance(mode, str):
        raise ArgumentError("pad: mode must be 'constant', 'reflect' or 'symmetric', got "
                            f"{valid.shown(mode)}.")
    if mode != "constant":
        return mirror_pad(x, pairs, mode)
    padded_shape(x.shape, pairs, "pad")  # the spec's rule: refuses negative widths
    if not any(lo or hi for lo, hi in pairs):
        return x
    valid.checked_size(tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, pairs)), x._backend, "pad")
    # (x's dtype must hold it: numpy and jax would each wrap or clamp their own way)
    return _PAD((x,), {"pad_width": pairs,
                       "constant_value": fill_number(constant_values, x.dtype, "constant_values", "pad")})


def tile(x: Any, repetitions: Shape, /) -> Tensor:
    """x repeated `repetitions[i]` times along each axis (aligned from the right)."""
    x = asarray(x)
    reps = _ints("tile", "repetitions", repetitions)
    if any(r < 0 for r in reps):
        raise ShapeError(f"tile: repetitions {reps} must be >= 0.")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - x.ndim) + x.shape
    target = valid.checked_size(tuple(r * d for r, d in zip(reps, shape)), x._backend, "tile")
    if target == x.shape:
        return x
    return _TILE((reshape(x, shape),), {"reps": reps})


def repeat(x: Any, repeats: int | Any, /, *, axis: int | None = None) -> Tensor:
    """Each element of x repeated `repeats` times (an int, or counts broadcasting to the length of
    `axis`) along `axis` (the flattened input if None)."""
    x = asarray(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    shape = x.shape
    a = normalize_axis(axis, len(shape), "repeat")
    try:
        counts = np.asarray(repeats.numpy() if isinstance(repeats, Tensor) else repeats)
    except ValueError:  # a ragged nesting of sequences
        counts = np.asarray(None)
    if counts.dtype.kind not in "iub" or (counts < 0).any():
        raise DTypeError(f"repeat: repeats must be non-negative ints, got {repeats!r}.")
    if counts.shape == (1,):  # broadcasts along the axis, as the standard allows
        counts = counts.reshape(())
    if counts.ndim == 0:
        r = int(counts)
        valid.checked_size(shape[:a] + (shape[a] * r,) + shape[a + 1:], x._backend, "repeat")
        out = broadcast_to(expand_dims(x, a + 1), shape[:a + 1] + (r,) + shape[a + 1:])
        return reshape(out, shape[:a] + (shape[a] * r,) + shape[a + 1:])
    if counts.shape != (shape[a],):
        raise ShapeError(f"repeat: repeats has shape {counts.shape}; it must be an int, one count, or "
                         f"one count per element of axis {a} (size {shape[a]}).")
    total = sum(counts.tolist())  # (Python ints: no overflow)
    valid.checked_size(shape[:a] + (total,) + shape[a + 1:], x._backend, "repeat")
    try:
        # (each count fits: their total does; numpy will not cast uint64 counts itself)
        indices = np.repeat(np.arange(shape[a], dtype=np.int64), counts.astype(np.int64))
    except MemoryError:
        raise OutOfMemoryError(f"repeat: the {total} indices of the result along axis {a} do not fit "
                               "in memory; repeat fewer times.") from None
    return _GATHER((x, asarray(indices)), {"axis": a})
