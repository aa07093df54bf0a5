"""Gradient clipping over pytrees of tensors (``tp.tree_util``; ``None``, an empty subtree,
passes through): by the global norm of all leaves, by each leaf's norm, by value. Written with
ops, so that it runs eagerly and inside a ``tp.jit`` step on any backend."""

from __future__ import annotations

import math
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float64
from tensorplug.errors import ArgumentError, DTypeError
from tensorplug.families._common.convert import asarray
from tensorplug.families.elementwise.ops import abs as tp_abs
from tensorplug.families.elementwise.ops import clip, maximum, sqrt
from tensorplug.families.reductions.ops import sum as tp_sum
from tensorplug.tree_util import tree_flatten, tree_unflatten

__all__ = ["clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]


def _leaves(tree: Any) -> tuple[list[Tensor | None], Any]:
    leaves, structure = tree_flatten(tree)
    return [None if leaf is None else asarray(leaf) for leaf in leaves], structure


def _bound(value: Any, name: str, fn: str) -> float:
    number = not isinstance(value, bool) and isinstance(value, (int, float))
    if not (number and value >= 0 and math.isfinite(value)):
        raise ArgumentError(f"{fn}: {name} must be a finite number >= 0, got {value!r}; "
                            f"pass e.g. {name}=1.0.")
    return float(value)


def _squared_norm(t: Tensor) -> Tensor:
    t64 = (tp_abs(t) if t.dtype.kind == "complex" else t).astype(float64)
    return tp_sum(t64 * t64)


def global_norm(tree: Any) -> Tensor:
    """The L2 norm of all the leaves of `tree` taken together, a float64 scalar tensor."""
    leaves = [t for t in _leaves(tree)[0] if t is not None]
    if not leaves:
        return asarray(0.0, dtype=float64)
    total = _squared_norm(leaves[0])
    for t in leaves[1:]:
        total = total + _squared_norm(t)
    return sqrt(total)


def _scaled(t: Tensor, norm: Tensor, max_norm: float, fn: str) -> Tensor:
    if not t.dtype.is_inexact:  # (the scale, cast to an integer dtype, would be 0 or 1)
        raise DTypeError(f"{fn}: a leaf has dtype {t.dtype.name}; scaling it by a norm needs a "
                         "floating (or complex) dtype: cast it first, e.g. x.astype(tp.float32).")
    # optax's form: exact (no epsilon), 1 where the norm is within max_norm
    scale = max_norm / maximum(norm, max_norm) if max_norm > 0 else norm * 0.0
    return t * scale.astype(t.dtype)


def clip_by_global_norm(tree: Any, max_norm: float) -> tuple[Any, Tensor]:
    """`tree` scaled by ``max_norm / max(global_norm, max_norm)`` (unchanged when its global
    L2 norm is at most `max_norm`), and that global norm (a float64 scalar tensor)."""
    max_norm = _bound(max_norm, "max_norm", "clip_by_global_norm")
    leaves, structure = _leaves(tree)
    norm = global_norm(leaves)
    out = [None if t is None else _scaled(t, norm, max_norm, "clip_by_global_norm") for t in leaves]
    return tree_unflatten(structure, out), norm


def clip_by_norm(tree: Any, max_norm: float) -> Any:
    """Each leaf of `tree` scaled by ``max_norm / max(norm(leaf), max_norm)``: its L2 norm
    (over all its elements) is at most `max_norm` afterwards."""
    max_norm = _bound(max_norm, "max_norm", "clip_by_norm")
    leaves, structure = _leaves(tree)
    out = [None if t is None else _scaled(t, sqrt(_squared_norm(t)), max_norm, "clip_by_norm")
           for t in leaves]
    return tree_unflatten(structure, out)


def clip_by_value(tree: Any, clip_value: float) -> Any:
    """Each element of each leaf of `tree` limited to ``[-clip_value, clip_value]``."""
    clip_value = _bound(clip_value, "clip_value", "clip_by_value")
    leaves, structure = _leaves(tree)
    out = [None if t is None else clip(t, -clip_value, clip_value) for t in leaves]
    return tree_unflatten(structure, out)
