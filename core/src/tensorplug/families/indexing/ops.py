"""Indexing ops: ``getitem`` (``Tensor.__getitem__``, numpy semantics), take,
take_along_axis, nonzero.

``x[key]`` runs as at most one StridedSlice and one Reshape for the basic part (ints, slices,
None, ``...``; boolean masks are merged into one axis there) and, when the key holds integer
arrays or masks, one Gather with a linear index (after a Transpose when numpy's placement rule
moves the indexed axes to the front). All of these kernels are differentiable in x.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import int64
from tensorplug.errors import DTypeError, IndexOutOfRangeError, IndexShapeError, ShapeError, TracedValueError
from tensorplug.families._common.axes import prod
from tensorplug.families._common.convert import asarray, astype, caller
from tensorplug.families.elementwise.ops import (
    add,
    floor_divide,
    greater_equal,
    less,
    logical_and,
    multiply,
    subtract,
    where,
)
from tensorplug.families.indexing.spec import gather_axis
from tensorplug.families.manipulation.ops import broadcast_to, moveaxis, permute_dims, reshape
from tensorplug.kernels.shape_rules import broadcast_shapes, normalize_axis

__all__ = ["nonzero", "take", "take_along_axis"]  # and getitem, behind x[key]

_STRIDED_SLICE = caller("StridedSlice")
_RESHAPE = caller("Reshape")
_GATHER = caller("Gather")
_NONZERO = caller("NonZero")

Index = Any  # a Tensor or a host (numpy) int64 array
_FAR_OUT = -(2**62)  # an index out of range of any axis (and of any offset added to it)


def _out_of_range(op: str, index: int, axis: int, size: int) -> IndexOutOfRangeError:
    valid = f"{-size}..{size - 1}" if size else "none, the axis is empty"
    return IndexOutOfRangeError(f"{op}: index {index} is out of range for axis {axis} of size "
                                f"{size} (valid: {valid}).")


def _checked(op: str, idx: Index, size: int, axis: int) -> Index:
    """Integer indices for an axis of `size`, bounds-checked, negatives counted from the end.

    Inside tp.jit (traced indices, no values to check) an index out of range becomes one far
    below any axis, which the backend's Gather turns into its fill value (NaN on jax): never
    a silent read of another element."""
    if isinstance(idx, Tensor):
        try:
            host = np.asarray(idx.numpy())
        except TracedValueError:
            idx = astype(idx, int64)
            inside = logical_and(greater_equal(idx, -size), less(idx, size))
            return where(inside, where(less(idx, 0), add(idx, size), idx), _FAR_OUT)
    else:
        host = idx
    negative = False
    if host.size:
        lo, hi = int(host.min()), int(host.max())
        if lo < -size or hi >= size:
            raise _out_of_range(op, lo if lo < -size else hi, axis, size)
        negative = lo < 0
    if isinstance(idx, Tensor):
        idx = astype(idx, int64)
        return where(less(idx, 0), add(idx, size), idx) if negative else idx
    return np.where(host < 0, host + size, host) if negative else host


def _host_indices(op: str, value: Any) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise DTypeError(f"{op}: cannot use {value!r} as an index: {exc}") from None
    if arr.dtype.kind in "iu" or (arr.size == 0 and arr.dtype.kind == "f"):
        return arr.astype(np.int64)
    if arr.dtype.kind == "b":
        return arr
    raise DTypeError(f"{op}: indices must be integers or booleans, got dtype {arr.dtype} "
                     f"({value!r}); cast them, e.g. x.astype(tp.int64).")


def _parse(key: Any) -> list[tuple[str, Any]]:
    """The key as (kind, value) items: int, slice, none, ellipsis, array, mask, bool0."""
    items: list[tuple[str, Any]] = []
    for k in key if isinstance(key, tuple) else (key,):
        if k is None:
            items.append(("none", None))
        elif k is Ellipsis:
            items.append(("ellipsis", None))
        elif isinstance(k, slice):
            items.append(("slice", k))
        elif isinstance(k, (bool, np.bool_)):
            items.append(("bool0", bool(k)))
        elif isinstance(k, Tensor):
            kind = k.dtype.kind
            if kind == "bool":
                items.append(("mask", k) if k.ndim else ("bool0", bool(k.item())))
            elif kind == "int":
                items.append(("array", k))
            else:
                raise DTypeError(f"getitem: a tensor index must be integer or bool, got "
                                 f"{k.dtype.name}; cast it with .astype(tp.int64).")
        elif isinstance(k, (int, np.integer)):
            items.append(("int", int(k)))
        elif isinstance(k, (list, tuple, np.ndarray)):
            arr = _host_indices("getitem", k)
            if arr.dtype.kind == "b":
                items.append(("mask", arr) if arr.ndim else ("bool0", bool(arr)))
            else:
                items.append(("array", arr))
        elif hasattr(k, "__index__"):
            items.append(("int", operator.index(k)))
        else:
            raise DTypeError(f"getitem: cannot index with {type(k).__name__} {k!r}; use ints, "
                             "slices, None, ..., or integer/boolean arrays.")
    return items


def _mask_indices(mask: Any) -> Index:
    if isinstance(mask, Tensor):
        return _NONZERO((mask,), {})
    return np.flatnonzero(mask).astype(np.int64)


def _plain(v: Any) -> bool:
    return v is None or type(v) is int


def getitem(x: Any, key: Any) -> Tensor:
    """x[key] with numpy's semantics: ints, slices, None, ..., boolean masks and integer
    arrays (broadcast together; placed first unless adjacent in the key)."""
    x = asarray(x)
    shape = x.shape
    if shape and type(key) is int and -shape[0] <= key < shape[0]:  # fast path: x[i]
        i = key % shape[0]
        y = _STRIDED_SLICE((x,), {"slices": ((i, i + 1, 1), *((0, d, 1) for d in shape[1:]))})
        return _RESHAPE((y,), {"shape": shape[1:]})
    if shape and type(key) is slice and _plain(key.start) and _plain(key.stop) and _plain(key.step) \
            and key.step != 0:  # fast path: x[a:b:c]
        s = key.indices(shape[0])
        if s == (0, shape[0], 1):
            return x
        first = s if len(range(*s)) else (0, 0, 1)
        return _STRIDED_SLICE((x,), {"slices": (first, *((0, d, 1) for d in shape[1:]))})
    return _general(x, shape, _expand(_parse(key), shape))


def _expand(items: list[tuple[str, Any]], shape: tuple[int, ...]) -> list[tuple[int, tuple[str, Any]]]:
    """Items with the ellipsis (or the end of the key) replaced by full slices, each paired with
    its position in the key: positions decide numpy's placement of advanced indices, and an
    ellipsis keeps its own (even when it stands for no axis)."""
    widths = {"int": 1, "slice": 1, "array": 1}
    used = sum(widths.get(kind, 0) if kind != "mask" else v.ndim for kind, v in items)
    ellipses = [i for i, (kind, _) in enumerate(items) if kind == "ellipsis"]
    if len(ellipses) > 1:
        raise ShapeError("getitem: an index can have only one ellipsis (...).")
    if used > len(shape):
        raise IndexShapeError(f"getitem: too many indices for a {len(shape)}-d tensor (shape {shape}): "
                         f"{used} axes indexed.")
    fill = [("slice", slice(None))] * (len(shape) - used)
    if not ellipses:
        return list(enumerate(items)) + [(len(items), it) for it in fill]
    e = ellipses[0]
    return ([(i, it) for i, it in enumerate(items[:e])] + [(e, it) for it in fill]
            + [(e + 1 + i, it) for i, it in enumerate(items[e + 1:])])


def _general(x: Tensor, shape: tuple[int, ...], entries: list[tuple[int, tuple[str, Any]]]) -> Tensor:
    """One StridedSlice and one Reshape for ints, slices, None and masks (merged to one axis
    each), then the advanced part."""
    slices: list[tuple[int, int, int]] = []
    y_shape: list[int] = []
    adv: list[tuple[int, Index, int]] = []  # (axis of y, indices, key position)
    int_positions: list[int] = []
    ax = 0
    for pos, (kind, v) in entries:
        if kind == "int":
            d = shape[ax]
            if not -d <= v < d:
                raise _out_of_range("getitem", v, ax, d)
            v %= d
            slices.append((v, v + 1, 1))
            int_positions.append(pos)
            ax += 1
        elif kind == "slice":
            try:
                s = v.indices(shape[ax])
            except (TypeError, ValueError) as exc:
                err = DTypeError if isinstance(exc, TypeError) else ShapeError
                raise err(f"getitem: invalid slice {v!r} for axis {ax}: {exc}") from None
            n = len(range(*s))
            slices.append(s if n else (0, 0, 1))
            y_shape.append(n)
            ax += 1
        elif kind in ("none", "bool0"):
            if kind == "bool0":
                adv.append((len(y_shape), np.zeros(1 if v else 0, np.int64), pos))
            y_shape.append(1)
        elif kind == "array":
            adv.append((len(y_shape), _checked("getitem", v, shape[ax], ax), pos))
            slices.append((0, shape[ax], 1))
            y_shape.append(shape[ax])
            ax += 1
        elif kind == "mask":
            k = v.ndim
            covered = shape[ax:ax + k]
            if not all(m in (d, 0) for m, d in zip(v.shape, covered)):
                raise IndexShapeError(f"getitem: boolean index of shape {tuple(v.shape)} does not match "
                                 f"axes {ax}..{ax + k - 1} of the indexed tensor (sizes {covered}, "
                                 f"shape {shape}); a mask must have the shape of the axes it covers "
                                 "(an axis of size 0 matches any: it selects nothing).")
            chosen = _mask_indices(v) if tuple(v.shape) == covered else np.zeros(0, np.int64)
            adv.append((len(y_shape), chosen, pos))
            slices.extend((0, d, 1) for d in covered)
            y_shape.append(prod(covered))
            ax += k

    y = x
    if any(s != (0, d, 1) for s, d in zip(slices, shape)):
        y = _STRIDED_SLICE((y,), {"slices": tuple(slices)})
    if tuple(y_shape) != tuple(len(range(*s)) for s in slices):
        y = _RESHAPE((y,), {"shape": valid.checked_size(tuple(y_shape), y._backend, "getitem")})
    if not adv:
        return y
    return _advanced(y, tuple(y_shape), adv, int_positions)


def _advanced(y: Tensor, shape: tuple[int, ...], adv: list[tuple[int, Index, int]],
              int_positions: list[int]) -> Tensor:
    """Gather for the integer-array part of a key; `adv` holds one entry per indexed axis of y."""
    positions = sorted([p for _, _, p in adv] + int_positions)
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    axes = [a for a, _, _ in adv]
    if len(adv) == 1:
        a, index, _ = adv[0]
        out = _GATHER((y, asarray(index)), {"axis": a})
        if adjacent or a == 0:
            return out
        nb = len(index.shape)
        return permute_dims(out, [*range(a, a + nb), *range(a), *range(a + nb, out.ndim)])
    index_shape = broadcast_shapes(*(tuple(i.shape) for _, i, _ in adv), op="getitem (index arrays)")
    strides = [prod(shape[b] for b in axes[i + 1:]) for i in range(len(axes))]
    linear = _linear([i for _, i, _ in adv], strides, index_shape)
    merged = prod(shape[a] for a in axes)
    if adjacent:  # the indexed axes of y are consecutive: merge them in place
        first, last = axes[0], axes[-1]
        y = _RESHAPE((y,), {"shape": shape[:first] + (merged,) + shape[last + 1:]})
        return _GATHER((y, linear), {"axis": first})
    rest = [b for b in range(len(shape)) if b not in axes]
    y = permute_dims(y, axes + rest)
    y = _RESHAPE((y,), {"shape": (merged,) + tuple(shape[b] for b in rest)})
    return _GATHER((y, linear), {"axis": 0})


def _linear(indices: list[Index], strides: list[int], index_shape: tuple[int, ...]) -> Tensor:
    """sum(indices[i] * strides[i]), broadcast to `index_shape` (on the host when possible)."""
    if not any(isinstance(i, Tensor) for i in indices):
        host = sum(np.asarray(i, np.int64) * s for i, s in zip(indices, strides))
        return asarray(np.broadcast_to(host, index_shape).astype(np.int64))
    out: Any = None
    for i, s in zip(indices, strides):
        term = multiply(astype(i, int64), s) if s != 1 else astype(i, int64)
        out = term if out is None else add(out, term)
    return broadcast_to(out, index_shape)


def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Tensor:
    """Elements of x at integer `indices` along `axis` (of the flattened x if None), like
    numpy's take; out-of-range indices are an error."""
    x = asarray(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    a = gather_axis(x.shape, axis, "take")
    idx = indices if isinstance(indices, Tensor) else _host_indices("take", indices)
    if idx.dtype.kind not in ("int", "uint", "i", "u"):
        raise DTypeError(f"take: indices must be integers, got {idx.dtype}; for a boolean mask "
                         "use x[mask].")
    return _GATHER((x, asarray(_checked("take", idx, x.shape[a], a))), {"axis": a})


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Tensor:
    """out[..., j, ...] = x[..., indices[..., j, ...], ...] along `axis`; the other axes of x
    and indices broadcast (numpy's take_along_axis)."""
    x = asarray(x)
    idx = indices if isinstance(indices, Tensor) else _host_indices("take_along_axis", indices)
    if idx.dtype.kind not in ("int", "uint", "i", "u"):
        raise DTypeError(f"take_along_axis: indices must be integers, got {idx.dtype}.")
    if idx.ndim != x.ndim or not x.ndim:
        raise ShapeError(f"take_along_axis: x (shape {x.shape}) and indices (shape "
                         f"{tuple(idx.shape)}) must have the same number (>= 1) of dimensions.")
    a = normalize_axis(axis, x.ndim, "take_along_axis")
    idx = _checked("take_along_axis", idx, x.shape[a], a)
    xs, js = list(x.shape), list(idx.shape)
    xs[a] = js[a] = 1
    batch = broadcast_shapes(xs, js, op="take_along_axis")
    x = broadcast_to(x, batch[:a] + (x.shape[a],) + batch[a + 1:])
    idx = broadcast_to(asarray(idx), batch[:a] + (idx.shape[a],) + batch[a + 1:])
    xm, im = moveaxis(x, a, -1), moveaxis(idx, a, -1)
    d, k, rows = x.shape[a], idx.shape[a], prod(batch)
    offsets = asarray(np.arange(rows, dtype=np.int64).reshape(-1, 1) * d)
    linear = add(reshape(im, (rows, k)), offsets)
    out = _GATHER((reshape(xm, (-1,)), linear), {"axis": 0})
    return moveaxis(reshape(out, im.shape), -1, a)


def nonzero(x: Any, /) -> tuple[Tensor, ...]:
    """Indices (int64, one tensor per axis, C order) of the non-zero elements of x."""
    x = asarray(x)
    shape = x.shape
    if not shape:
        raise ShapeError("nonzero needs at least one dimension, got a 0-d tensor; reshape it to "
                         "(1,) first.")
    if 0 in shape:
        empty = asarray(np.zeros(0, np.int64))
        return tuple(empty for _ in shape)
    flat = _NONZERO((x,), {})
    out = []
    for i, d in enumerate(shape):
        stride = prod(shape[i + 1:])
        coord = floor_divide(flat, stride) if stride != 1 else flat
        if i:
            coord = subtract(coord, multiply(floor_divide(coord, d), d))
        out.append(coord)
    return tuple(out)
