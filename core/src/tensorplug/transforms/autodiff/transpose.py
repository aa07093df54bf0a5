"""Transposing a linear map written with ops: how forward mode gets a kernel's JVP from its
gradient (and a custom gradient's), and reverse mode a custom JVP's gradient.

For ``fn`` linear in its arguments, ``transpose(fn, like, cotangents)`` differentiates
``sum_j <fn(us)_j, cotangents_j>`` (``<a, b> = sum(a * b)``, no conjugate: JAX's convention)
with respect to ``us`` by the tape. Everything runs as ops, so enclosing recorders see it and
higher derivatives stay right.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core.context import push_recorder, remove_recorder
from tensorplug.core.tensor import Tensor
from tensorplug.families.creation.ops import ones_like, zeros_like
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.transforms.autodiff.tape import Tape, backward

__all__ = ["transpose"]


def transpose(fn: Callable[[list[Tensor]], Sequence[Tensor | None]], like: Sequence[Tensor],
              cotangents: Sequence[Tensor | None]) -> list[Tensor | None]:
    """The transpose of the linear `fn` (arguments shaped like `like`) applied to `cotangents`
    (one per result of fn; None: zero). None for every argument when all terms are zero."""
    us = [zeros_like(t) for t in like]
    tape = Tape([u for u in us if u._dtype.is_inexact])
    total: Tensor | None = None
    push_recorder(tape)
    try:
        for result, ct in zip(fn(us), cotangents):
            if result is not None and ct is not None:
                term = _sum(result * ct)
                total = term if total is None else total + term
    finally:
        remove_recorder(tape)
    if total is None or not tape.sources:
        return [None] * len(us)
    grads: list[Any] = backward(tape, total, ones_like(total), tape.sources)
    found = iter(grads)
    return [next(found) if u._dtype.is_inexact else None for u in us]
