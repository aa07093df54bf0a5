"""``tp.vmap``: a function of one example made a function of a batch.

While the function runs, the active backend is a batching backend (``batching_backend.py``) over
the backend active at the call; the arguments enter it with their batch axis where it is (no
copy), and the results leave it with their batch axis moved to `out_axes` (ops of the level
beneath, seen by its tapes). The recorders active at the call see every op the batching rules
run; inside the function, recorders start empty (a tape begun there records per-example ops).
When the call returns (or raises), its level is closed: a tensor made inside it that escaped
(kept in a list, a global, a closure) raises TracedValueError wherever it is used.

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

from tensorplug.backends.lifecycle import Backend, active_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import backend_var, recorders_var
from tensorplug.core.runtime import ACTIVE
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families._common.convert import asarray
from tensorplug.families.manipulation.ops import broadcast_to, expand_dims, moveaxis
from tensorplug.kernels.dispatcher import wrap
from tensorplug.transforms.vmap.axis_trees import AxisSpec, Leaf, check_axes, leaves_of, rebuild
from tensorplug.transforms.vmap.batching_backend import Batched, BatchingBackend

__all__ = ["vmap"]

_FREE_LIMIT = 64


def _level(inner: Backend, size: int) -> BatchingBackend:
    """A batching backend over `inner`, opened for one call (reused between calls, so that
    dispatchers stay bound)."""
    level = ACTIVE.runtime.vmap_levels.pop((inner, size), None) or BatchingBackend(inner, size)
    level.open(recorders_var.get())
    return level


def _release(level: BatchingBackend) -> None:
    level.close()
    free = ACTIVE.runtime.vmap_levels
    if len(free) >= _FREE_LIMIT:
        free.clear()
    free[(level.inner, level.size)] = level


def vmap(f: Callable[..., Any], in_axes: AxisSpec = 0, out_axes: AxisSpec = 0,
         axis_size: int | None = None) -> Callable[..., Any]:
    """`f` mapped over a batch axis of its arguments, as JAX's ``vmap``: `in_axes` gives, per
    positional argument, the axis its tensors carry the batch on (None: not batched; one int or
    None for all arguments, or a tuple of one per argument, each a tree like its argument's);
    keyword arguments are always batched along axis 0 (every leaf; bind an unbatched one with
    ``functools.partial`` or pass it positionally). `out_axes` likewise for the results, where
    the batch axis goes. `axis_size` is the batch size when no argument is batched. None
    leaves pass through as they are, among the arguments and the results. Composes with grad,
    jvp, jit (``vmap(jit(f))`` runs `f` op by op, batched) and vmap itself. A tensor made
    inside `f` must leave through its results: one that escapes otherwise raises
    TracedValueError when used."""
    valid.function(f, "vmap")
    check_axes(in_axes, "in_axes")
    check_axes(out_axes, "out_axes")
    if axis_size is not None:
        axis_size = valid.integer(axis_size, "vmap", "axis_size")
        if axis_size < 0:
            raise ArgumentError(f"vmap: axis_size must be >= 0, got {axis_size}.")

    @functools.wraps(f)
    def batched(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
            raise ArgumentError(f"vmap: in_axes has {len(in_axes)} entries for {len(args)} positional "
                                "arguments; give one per positional argument (or one int/None for all; "
                                "keyword arguments are batched along axis 0).")
        spec = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else in_axes
        leaves: list[Leaf] = []
        structure = leaves_of(args, spec, "argument", leaves)
        keywords = {k: leaves_of(v, 0, f"keyword argument {k!r}", leaves) for k, v in kwargs.items()}
        inner = backend_var.get() or active_backend()
        entered, size = _entered(leaves, axis_size)
        level = _level(inner, size)
        try:
            lifted = iter([_lifted(x, a, level) for x, a in entered])
            args = rebuild(structure, lifted)
            kwargs = {k: rebuild(s, lifted) for k, s in keywords.items()}
            backend_token = backend_var.set(level)
            recorders_token = recorders_var.set(())
            try:
                out = f(*args, **kwargs)
            finally:
                recorders_var.reset(recorders_token)
                backend_var.reset(backend_token)
            return _exit(out, out_axes, level)
        finally:
            _release(level)

    return batched


def _asked(where: str, axis: int) -> tuple[str, str]:
    """For messages: who asked leaf `where` to be mapped over `axis`, and how not to map it."""
    if where.startswith("keyword"):
        return (f"keyword arguments are mapped over axis 0 (whatever in_axes says): axis 0 for {where}",
                "bind it with functools.partial, or pass it positionally with None as its in_axes entry")
    return f"in_axes gives axis {axis} for {where}", "give None as its in_axes entry"


def _entered(leaves: list[Leaf], axis_size: int | None) -> tuple[list[tuple[Any, Any]], int]:
    """Each leaf as a tensor (if batched, or already one) with its normalized batch axis, and
    the batch size."""
    out: list[tuple[Any, Any]] = []
    sizes: dict[int, str] = {}
    for x, axis, where in leaves:
        if axis is None or x is None:  # (None: an empty tree, as in JAX)
            out.append((x, None))
            continue
        if not isinstance(x, (Tensor, np.ndarray, np.generic, int, float, complex, bool)):
            raise ArgumentError(f"vmap: {where} is {valid.shown(x)}, which has no axis to map over; "
                                f"{_asked(where, axis)[1]}.")
        t = asarray(x)
        if t.ndim == 0:
            asked, fix = _asked(where, axis)
            raise ShapeError(f"vmap: {asked}, a scalar, which has no axis to map over; {fix} (the same "
                             "value for every example).")
        if not -t.ndim <= axis < t.ndim:
            raise ShapeError(f"vmap: {_asked(where, axis)[0]}, of shape {t.shape}; the axis must be in "
                             f"[-{t.ndim}, {t.ndim}).")
        axis %= t.ndim
        sizes.setdefault(t.shape[axis], where)
        out.append((t, axis))
    if len(sizes) > 1:
        shown = ", ".join(f"{where} has {n}" for n, where in sizes.items())
        raise ShapeError(f"vmap: the mapped axes have different sizes ({shown}); every batched argument "
                         "needs the same batch size along its in_axes axis (keyword arguments: axis 0).")
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
    native = Batched(x, axis, level.call) if axis is not None else level.from_tensor(x)
    return wrap(native, level, x._dtype)


def _exit(out: Any, out_axes: AxisSpec, level: BatchingBackend) -> Any:
    """The function's results as tensors of the level beneath, batch axes at `out_axes`."""
    leaves: list[Leaf] = []
    structure = leaves_of(out, out_axes, "result", leaves)
    results: list[Tensor | None] = []
    for t, axis, where in leaves:
        if t is None:  # (an empty tree, as in JAX)
            results.append(None)
            continue
        if not isinstance(t, Tensor):
            raise ArgumentError(f"vmap: the function must return Tensors (in tuples, lists or dicts; "
                                f"None for none); {where} is {valid.shown(t)}.")
        native = level.live(t._data) if t._backend is level else level.from_tensor(t)
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
    return rebuild(structure, iter(results))

