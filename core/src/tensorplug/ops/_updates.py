"""Functional updates, JAX's way: ``x.at[key].set(v)`` (``.add``, ``.multiply``, ``.min``,
``.max``, ``.get``) returns a new tensor; tensors themselves are immutable (``x[key] = v`` is an
ImmutableTensorError). Built from ops (Gather, Where, the elementwise kernels), so it is
differentiable with respect to x and v and runs on every backend and under ``tp.jit``.

The places ``x[key]`` addresses are found on the host (numpy indexing of the flat positions,
after ``getitem`` has checked the key with its own errors); repeated places are applied in
order (``set``: the last value wins; ``add`` / ``multiply`` / ``min`` / ``max`` accumulate), one
Where per repetition depth, never a loop over elements.

A key of integer tensors whose values are unknown here (inside ``tp.jit``, or different per
example inside ``tp.vmap``) addresses x's leading axes, one tensor (or int) per axis: ``set``
is TensorScatterUpdate and ``add`` adds a ScatterNd, as ``jax``'s ``.at`` with traced indices;
an index out of range raises where the kernel sees values and gives NaN inside ``tp.jit``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.errors import (
    ArgumentError,
    DTypeError,
    ImmutableTensorError,
    ShapeError,
    TensorplugError,
    TracedValueError,
)
from tensorplug.families._common.convert import asarray, astype
from tensorplug.families.elementwise.ops import add, less, maximum, minimum, multiply, where
from tensorplug.families.indexing.ops import getitem, take
from tensorplug.families.manipulation.ops import broadcast_arrays, broadcast_to, reshape, stack
from tensorplug.families.scatter_nd.ops import scatter_nd, tensor_scatter_update
from tensorplug.kernels.shape_rules import fitting_value

__all__ = ["At"]

Combine = Callable[[Tensor, Tensor], Tensor]


def _host_list(k: list[Any]) -> np.ndarray:
    arr = np.asarray(k)
    # an empty list addresses no place, as in getitem (numpy would make it a float index)
    return arr.astype(np.intp) if arr.size == 0 else arr


def _host_key(key: Any) -> Any:
    parts = key if isinstance(key, tuple) else (key,)
    host = tuple(k._host() if isinstance(k, Tensor) else _host_list(k) if isinstance(k, list) else k
                 for k in parts)
    return host if isinstance(key, tuple) else host[0]


def _positions(x: Tensor, key: Any, host_key: Any, op: str) -> np.ndarray:
    """The flat positions of x that ``x[key]`` (``host_key`` on the host) addresses, in the
    shape of ``x[key]``."""
    try:
        shape = getitem(x, key).shape  # getitem's errors for a bad key, told as op's
    except TensorplugError as exc:
        raise type(exc)(f"{_written(op, key)}: {exc}") from exc
    ids = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    try:
        pos = np.asarray(ids[host_key])
    except TensorplugError:
        raise
    except (IndexError, TypeError, ValueError) as exc:  # (getitem took the key: not expected)
        raise ArgumentError(f"{op}: cannot address x[{key!r}] (shape {x.shape}): {exc}") from exc
    if pos.shape != tuple(shape):
        raise ArgumentError(f"{op}: the key {key!r} addresses a shape {pos.shape} on the host but "
                            f"{tuple(shape)} in getitem; report this as a tensorplug bug.")
    return pos


def _ranks(flat: np.ndarray) -> np.ndarray:
    """For each position, how many earlier entries address the same place (0 for the first)."""
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    index = np.arange(flat.size)
    starts = np.ones(flat.size, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    ranks = np.empty(flat.size, dtype=np.int64)
    ranks[order] = index - np.maximum.accumulate(np.where(starts, index, 0))
    return ranks


def update(x: Any, key: Any, values: Any, combine: Combine, op: str) -> Tensor:
    """x with ``combine(x[p], v)`` at every place p of ``x[key]``, v broadcast to x[key]'s shape."""
    x = asarray(x)
    v = _values(x, key, values, op)
    try:
        host_key = _host_key(key)
    except TracedValueError:  # (inside tp.jit, or a batched key inside tp.vmap)
        return _scattered(x, key, v, combine, op)
    pos = _positions(x, key, host_key, op)
    try:
        flat_v = reshape(broadcast_to(v, pos.shape), (-1,))
    except ShapeError as exc:
        raise ShapeError(f"{_written(op, key)}: values of shape {v.shape} do not broadcast to the "
                         f"shape {pos.shape} of x[{_key_text(key)}] ({exc})") from exc
    flat_pos = pos.reshape(-1)
    if not flat_pos.size:
        return x
    n = x.size
    ranks = _ranks(flat_pos)
    out = reshape(x, (-1,))
    for depth in range(int(ranks.max()) + 1):
        entries = np.flatnonzero(ranks == depth)
        source = np.zeros(n, dtype=np.int64)
        source[flat_pos[entries]] = entries
        mask = np.zeros(n, dtype=bool)
        mask[flat_pos[entries]] = True
        new = take(flat_v, asarray(source))
        out = where(asarray(mask), combine(out, new), out)
    return reshape(out, x.shape)


def _values(x: Tensor, key: Any, values: Any, op: str) -> Tensor:
    """`values` as a tensor of x's dtype; DTypeError naming the update as written for a value
    x's dtype cannot hold (an int out of its range, NaN into integers, complex into reals)."""
    try:
        if isinstance(values, Tensor):
            return astype(values, x.dtype)
        if isinstance(values, (bool, int, float, complex)):
            fitting_value(values, x.dtype, "values", None)
        return asarray(values, dtype=x.dtype)
    except DTypeError as exc:
        raise DTypeError(f"{_written(op, key)}: {exc}") from exc


def _written(op: str, key: Any) -> str:
    """The update as the user wrote it: ``x.at[0].set`` for op ``at[].set``."""
    return op.replace("at[]", f"x.at[{_key_text(key)}]")


def _replace(old: Tensor, new: Tensor) -> Tensor:
    return new


def _integer_index(k: Any) -> bool:
    """Whether `k` is an int or an integer tensor."""
    if isinstance(k, Tensor):
        return k.dtype.is_integer
    return isinstance(k, int) and not isinstance(k, bool)


def _scattered(x: Tensor, key: Any, v: Tensor, combine: Combine, op: str) -> Tensor:
    """``update`` for a key whose values are unknown: integer tensors (or ints) for x's
    leading axes, their places written by a scatter kernel."""
    parts = key if isinstance(key, tuple) else (key,)
    if combine not in (_replace, add) or len(parts) > x.ndim or not all(map(_integer_index, parts)):
        raise ArgumentError(
            f"{op}: the key's values are unknown here (inside tp.jit, or different per example "
            "inside tp.vmap), so x.at[key] takes only integer tensors (or ints), one per leading "
            f"axis of x (shape {x.shape}), with .set or .add; got "
            f"{_written(op, key)}. Make the key a static argument of "
            "tp.jit, or write the update with tp.where.")
    indices = broadcast_arrays(*[asarray(k) for k in parts])
    rows = stack([where(less(i, 0), i + n, i) for i, n in zip(indices, x.shape)], axis=-1)
    v = broadcast_to(v, rows.shape[:-1] + x.shape[len(parts):])
    if combine is add:
        if x.dtype.is_bool:
            raise DTypeError(f"{op}: x is bool; cast it first, e.g. x.astype(tp.int32).")
        return add(x, scatter_nd(rows, v, x.shape))
    return tensor_scatter_update(x, rows, v)


class _Ref:
    """``x.at[key]``: the update methods for the places ``x[key]`` addresses."""

    __slots__ = ("_x", "_key")

    def __init__(self, x: Tensor, key: Any) -> None:
        self._x = x
        self._key = key

    def get(self) -> Tensor:
        """``x[key]``."""
        return getitem(self._x, self._key)

    def set(self, values: Any) -> Tensor:
        """A new tensor: x with `values` (broadcast, cast to x's dtype) at ``x[key]``; where a
        place is addressed more than once, the last value wins."""
        return update(self._x, self._key, values, _replace, "at[].set")

    def add(self, values: Any) -> Tensor:
        """A new tensor: x with `values` added at ``x[key]`` (repeated places add up)."""
        return update(self._x, self._key, values, add, "at[].add")

    def multiply(self, values: Any) -> Tensor:
        """A new tensor: x with ``x[key]`` multiplied by `values` (repeated places multiply)."""
        return update(self._x, self._key, values, multiply, "at[].multiply")

    def min(self, values: Any) -> Tensor:
        """A new tensor: x with ``x[key]`` replaced by ``minimum(x[key], values)``."""
        return update(self._x, self._key, values, minimum, "at[].min")

    def max(self, values: Any) -> Tensor:
        """A new tensor: x with ``x[key]`` replaced by ``maximum(x[key], values)``."""
        return update(self._x, self._key, values, maximum, "at[].max")

    def __repr__(self) -> str:
        return f"<tensorplug update ref x.at[{self._key!r}] of shape {self._x.shape}>"


class At:
    """``x.at``: index it (``x.at[key]``) for the functional update methods."""

    __slots__ = ("_x",)

    def __init__(self, x: Tensor) -> None:
        self._x = x

    def __getitem__(self, key: Any) -> _Ref:
        return _Ref(self._x, key)


def immutable_error(key: Any) -> ImmutableTensorError:
    """The error of ``x[key] = ...``: tensors are immutable; it shows the ``.at`` update."""
    return ImmutableTensorError(
        f"tensorplug tensors are immutable, so x[{_key_text(key)}] = ... cannot write one in "
        f"place: use the functional update x = x.at[{_key_text(key)}].set(value), which returns "
        "a new tensor (also .add, .multiply, .min, .max); see 'Tensors are immutable' in the "
        "reference of Tensor.")


def _key_text(key: Any) -> str:
    parts = key if isinstance(key, tuple) else (key,)
    text = ", ".join("..." if k is Ellipsis else "None" if k is None else
                     (f"{k.start if k.start is not None else ''}:{k.stop if k.stop is not None else ''}"
                      + (f":{k.step}" if k.step is not None else "")) if isinstance(k, slice)
                     else repr(k) if isinstance(k, (int, bool)) else "idx" for k in parts)
    return text or "()"
