"""``tp.vmap``: a function of one example made a function of a batch.

While the function runs, the active backend is a batching backend (``batching.backend``) over
the backend active at the call; the arguments enter it with their batch axis where it is (no
copy), and the results leave it with their batch axis moved to `out_axes` (ops of the level
beneath, seen by its tapes). The recorders active at the call see every op the batching rules
run; inside the function, recorders start empty (a tape begun there records per-example ops).

Kernels whose output shape depends on the values (Unique, UniqueCounts, NonZero, the
NonMaxSuppressions, SparseFillEmptyRows, SparseReshape) have no rule and stay on the loop, as
JAX cannot batch them either (no one call can return examples of different shapes); so does
Multinomial, seeded per call, since one batched call would draw other numbers than the examples'
calls. Kernels without tensor inputs (Fill, RandomNormal, RandomUniform) run once, shared by
every example.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _validate as valid
from .._state import backend_var, recorders_var
from ..backend import Backend, active_backend
from ..dispatch import wrap
from ..errors import ArgumentError, ShapeError
from ..ops._convert import asarray
from ..ops.manipulation import broadcast_to, expand_dims, moveaxis
from ..tensor import Tensor
from .backend import Batched, BatchingBackend

__all__ = ["vmap"]

AxisSpec = Any  # an int or None, or a tree of them (tuple/list/dict) matching an argument


def _check_axes(spec: AxisSpec, what: str) -> None:
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            _check_axes(s, what)
        return
    if isinstance(spec, dict):
        for s in spec.values():
            _check_axes(s, what)
        return
    raise ArgumentError(f"vmap: {what} must be an int, None, or a tuple/list/dict of them matching the "
                        f"arguments; got {valid.shown(spec)}.")


def _leaves(tree: Any, spec: AxisSpec, where: str, out: list[tuple[Any, Any, str]]) -> Any:
    """The leaves of `tree` with the axis `spec` gives each (a prefix tree of it), and the
    structure to rebuild it."""
    if isinstance(tree, dict):
        if isinstance(spec, dict):
            if set(spec) != set(tree):
                raise ArgumentError(f"vmap: the axes for {where} have keys {sorted(spec, key=str)}, the "
                                    f"value has {sorted(tree, key=str)}; give one axis per key.")
            return ("dict", list(tree), [_leaves(tree[k], spec[k], f"{where}[{k!r}]", out) for k in tree])
        return ("dict", list(tree), [_leaves(tree[k], spec, f"{where}[{k!r}]", out) for k in tree])
    if isinstance(tree, (tuple, list)):
        if isinstance(spec, (tuple, list)):
            if len(spec) != len(tree):
                raise ArgumentError(f"vmap: the axes for {where} have {len(spec)} entries, the value "
                                    f"{len(tree)}; give one axis per entry.")
            parts = [_leaves(t, s, f"{where}[{i}]", out) for i, (t, s) in enumerate(zip(tree, spec))]
        else:
            parts = [_leaves(t, spec, f"{where}[{i}]", out) for i, t in enumerate(tree)]
        return (type(tree), None, parts)
    if isinstance(spec, (tuple, list, dict)):
        raise ArgumentError(f"vmap: the axes for {where} are a {type(spec).__name__}, the value is "
                            f"{valid.shown(tree)}; give an int or None for it.")
    out.append((tree, spec, where))
    return None


def _rebuild(structure: Any, leaves: Any) -> Any:
    if structure is None:
        return next(leaves)
    kind, keys, children = structure
    built = [_rebuild(c, leaves) for c in children]
    if kind == "dict":
        return dict(zip(keys, built))
    return kind(built) if kind in (list, tuple) else kind(*built)


_free: dict[tuple[Backend, int], BatchingBackend] = {}  # batching backends not in use, for reuse
_FREE_LIMIT = 64


def _level(inner: Backend, size: int) -> BatchingBackend:
    """A batching backend over `inner` (reused between calls, so that dispatchers stay bound)."""
    return _free.pop((inner, size), None) or BatchingBackend(inner, size)


def _release(level: BatchingBackend) -> None:
    level.recorders = ()
    if len(_free) >= _FREE_LIMIT:
        _free.clear()
    _free[(level.inner, level.size)] = level


def vmap(f: Callable[..., Any], in_axes: AxisSpec = 0, out_axes: AxisSpec = 0,
         axis_size: int | None = None) -> Callable[..., Any]:
    """`f` mapped over a batch axis of its arguments, as JAX's ``vmap``: `in_axes` gives, per
    positional argument, the axis its tensors carry the batch on (None: not batched; one int or
    None for all arguments, or a tuple of one per argument, each a tree like its argument's);
    `out_axes` likewise for the results, where the batch axis goes. `axis_size` is the batch
    size when no argument is batched. Composes with grad, jvp, jit and vmap itself."""
    valid.function(f, "vmap")
    _check_axes(in_axes, "in_axes")
    _check_axes(out_axes, "out_axes")
    if axis_size is not None:
        axis_size = valid.integer(axis_size, "vmap", "axis_size")
        if axis_size < 0:
            raise ArgumentError(f"vmap: axis_size must be >= 0, got {axis_size}.")

    @functools.wraps(f)
    def batched(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ArgumentError(f"vmap: pass the arguments of {getattr(f, '__name__', 'f')} "
                                "positionally (in_axes refers to positions); keyword arguments "
                                f"{sorted(kwargs)} were given.")
        if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
            raise ArgumentError(f"vmap: in_axes has {len(in_axes)} entries for {len(args)} arguments; "
                                "give one per positional argument (or one int/None for all).")
        spec = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else in_axes
        leaves: list[tuple[Any, Any, str]] = []
        structure = _leaves(args, spec, "argument", leaves)
        inner = backend_var.get() or active_backend()
        entered, size = _entered(leaves, axis_size)
        level = _level(inner, size)
        level.recorders = recorders_var.get()
        args = _rebuild(structure, iter([_lifted(x, a, level) for x, a in entered]))
        backend_token = backend_var.set(level)
        recorders_token = recorders_var.set(())
        try:
            out = f(*args)
        finally:
            recorders_var.reset(recorders_token)
            backend_var.reset(backend_token)
        try:
            return _exit(out, out_axes, level)
        finally:
            _release(level)

    return batched


def _entered(leaves: list[tuple[Any, Any, str]], axis_size: int | None) -> tuple[list[tuple[Any, Any]], int]:
    """Each leaf as a tensor (if batched, or already one) with its normalized batch axis, and
    the batch size."""
    out: list[tuple[Any, Any]] = []
    sizes: dict[int, str] = {}
    for x, axis, where in leaves:
        if axis is None:
            out.append((x, None))
            continue
        if not isinstance(x, (Tensor, np.ndarray, np.generic, int, float, complex, bool)):
            raise ArgumentError(f"vmap: {where} is {valid.shown(x)}, which has no axis to map over; "
                                "give None as its in_axes entry.")
        t = asarray(x)
        if t.ndim == 0:
            raise ShapeError(f"vmap: in_axes gives axis {axis} for {where}, a scalar, which has no axis to "
                             "map over; give None as its in_axes entry (the same value for every example).")
        if not -t.ndim <= axis < t.ndim:
            raise ShapeError(f"vmap: in_axes gives axis {axis} for {where}, of shape {t.shape}; the "
                             f"axis must be in [-{t.ndim}, {t.ndim}).")
        axis %= t.ndim
        sizes.setdefault(t.shape[axis], where)
        out.append((t, axis))
    if len(sizes) > 1:
        shown = ", ".join(f"{where} has {n}" for n, where in sizes.items())
        raise ShapeError(f"vmap: the mapped axes have different sizes ({shown}); every batched "
                         "argument needs the same batch size along its in_axes axis.")
    if sizes:
        size = next(iter(sizes))
        if axis_size is not None and axis_size != size:
            raise ShapeError(f"vmap: axis_size is {axis_size} but the mapped axes have size {size}.")
        return out, size
    if axis_size is None:
        raise ArgumentError("vmap: no argument is mapped over (every in_axes entry is None); give "
                            "axis_size=N for a batch of N results.")
    return out, axis_size


def _lifted(x: Any, axis: int | None, level: BatchingBackend) -> Any:
    """A leaf as the function sees it: tensors on the batching level; other values as they are."""
    if not isinstance(x, Tensor):
        return x
    native = Batched(x, axis) if axis is not None else level.from_tensor(x)
    return wrap(native, level, x._dtype)


def _exit(out: Any, out_axes: AxisSpec, level: BatchingBackend) -> Any:
    """The function's results as tensors of the level beneath, batch axes at `out_axes`."""
    leaves: list[tuple[Any, Any, str]] = []
    structure = _leaves(out, out_axes, "result", leaves)
    results = []
    for t, axis, where in leaves:
        if not isinstance(t, Tensor):
            raise ArgumentError(f"vmap: the function must return Tensors (in tuples, lists or dicts); "
                                f"{where} is {valid.shown(t)}.")
        native = t._data if t._backend is level else level.from_tensor(t)
        value, batch_axis = native.value, native.axis
        if axis is None:
            if batch_axis is not None:
                raise ShapeError(f"vmap: out_axes is None for {where}, but it differs between "
                                 "examples; give it an axis to stack the batch along.")
            results.append(value)
            continue
        rank = value.ndim + (batch_axis is None)
        if not -rank <= axis < rank:
            raise ShapeError(f"vmap: out_axes gives axis {axis} for {where}, whose batched shape has "
                             f"{rank} axes; give an axis in [-{rank}, {rank}).")
        axis %= rank
        if batch_axis is None:  # the same for every example: broadcast over the batch
            value = expand_dims(value, axis=axis)
            shape = list(value.shape)
            shape[axis] = level.size
            results.append(broadcast_to(value, tuple(shape)))
        elif batch_axis != axis:
            results.append(moveaxis(value, batch_axis, axis))
        else:
            results.append(value)
    return _rebuild(structure, iter(results))

