"""Forward mode: a recorder that carries a tangent along with every tensor computed from the
primals, and ``jvp`` / ``linearize`` on top of it.

After each kernel call with a tangent on some input, the recorder computes the outputs'
tangents with the kernel's JVP rule in force (``tensorplug.extend.find_jvp``) or, for a kernel
without one, by transposing its gradient (``transpose``); an entry with its own derivatives
(``CustomRule``) uses its ``jvp``, else its transposed ``grad``. Rules run as ops, seen by the
recorders outside this one (so ``grad`` of ``jvp``, ``jvp`` of ``jvp`` and ``tp.jit`` work) and
not by those inside it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.context import push_recorder, recorders_var, remove_recorder
from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.convert import asarray
from tensorplug.families.creation.ops import zeros_like
from tensorplug.registry.jvps import find_jvp
from tensorplug.registry.specs import get_kernel_spec
from tensorplug.transforms.autodiff.tape import (
    CustomRule,
    Differentiating,
    Entry,
    fresh,
    gradient_thunks,
    input_name,
)
from tensorplug.transforms.autodiff.transpose import transpose
from tensorplug.tree_util import array_leaves, is_node, tree_flatten, tree_unflatten

__all__ = ["JvpRecorder", "jvp", "linearize", "forward_mode_records", "hidden_from_forward_mode",
           "output_tangents"]


class JvpRecorder(Differentiating):
    """The tangents of the tensors computed from the seeded primals, by tensor identity (the
    tensors are kept alive with their tangents while the recorder is)."""

    __slots__ = ("tangents",)

    def __init__(self) -> None:
        self.tangents: dict[int, tuple[Tensor, Tensor]] = {}

    def seed(self, primal: Tensor, tangent: Tensor) -> None:
        self.tangents[id(primal)] = (primal, tangent)

    def tangent_of(self, t: Tensor) -> Tensor | None:
        found = self.tangents.get(id(t))
        return found[1] if found is not None and found[0] is t else None

    def record(self, name: str, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any],
               outputs: tuple[Tensor, ...], custom: CustomRule | None = None, start: int = 0,
               direct: Any = None) -> None:
        known, seeded = self.tangents, False
        tangents: list[Tensor | None] = []
        for x in inputs:  # (tangent_of, written out: this runs for every op forward mode sees)
            pair = known.get(id(x))
            if pair is not None and pair[0] is x:
                tangents.append(pair[1])
                seeded = True
            else:
                tangents.append(None)
        if not seeded:
            return
        for o in outputs:
            if o._dtype.is_inexact:
                break
        else:
            return
        outside = recorders_var.get()
        token = recorders_var.set(outside[:outside.index(self)])  # (the rule is seen from outside only)
        try:
            found = output_tangents(name, inputs, tuple(tangents), attrs, outputs, custom)
        finally:
            recorders_var.reset(token)
        for o, t in zip(outputs, found):
            if t is not None and o._dtype.is_inexact:
                self.tangents[id(o)] = (o, _checked_tangent(t, o, name))


def _checked_tangent(t: Any, o: Tensor, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise AutodiffError(f"the JVP rule of '{name}' returned a {type(t).__name__} for an output "
                            "tangent; return a Tensor (or None for a zero tangent).")
    if t.shape != o.shape:
        raise AutodiffError(
            f"the JVP rule of '{name}' returned a tangent of shape {t.shape} for an output of shape "
            f"{o.shape}; a tangent has its primal's shape.")
    return t if t._dtype is o._dtype else t.astype(o._dtype)


def output_tangents(name: str, inputs: tuple[Tensor, ...], tangents: tuple[Tensor | None, ...],
                    attrs: Mapping[str, Any], outputs: tuple[Tensor, ...],
                    custom: CustomRule | None = None) -> list[Tensor | None]:
    """One tangent (or None: zero) per output of kernel `name` (or of a custom entry), from
    its inputs' tangents (None: zero)."""
    if custom is not None:
        if custom.jvp is not None:
            filled = tuple(t if t is not None else zeros_like(x) for t, x in zip(tangents, inputs))
            return _as_list(custom.jvp(filled), len(outputs), name)
        return _transposed(Entry(name, inputs, attrs, outputs, custom), tangents)
    rule = find_jvp(name)
    if rule is not None:
        return _as_list(rule.jvp_func(inputs, tangents, outputs, attrs), len(outputs), name)
    return _transposed(Entry(name, inputs, attrs, outputs), tangents)


def _as_list(result: Any, count: int, name: str) -> list[Tensor | None]:
    if count == 1 and not isinstance(result, (tuple, list)):
        return [result]
    if not isinstance(result, (tuple, list)) or len(result) != count:
        raise AutodiffError(f"the JVP rule of '{name}' must return one tangent per output ({count}), "
                            f"got {type(result).__name__}"
                            f"{f' of length {len(result)}' if isinstance(result, (tuple, list)) else ''}.")
    return list(result)


def _transposed(entry: Entry, tangents: tuple[Tensor | None, ...]) -> list[Tensor | None]:
    """The outputs' tangents of `entry` by transposing its gradient (a kernel without a JVP
    rule, or a custom gradient)."""
    outputs = entry.outputs
    if entry.custom is None:
        spec = get_kernel_spec(entry.name)
        if not spec.differentiable:  # (its outputs do not depend smoothly on its inputs)
            return [None] * len(outputs)

    def gradient(us: list[Tensor]) -> list[Tensor | None]:
        dy = us[0] if len(us) == 1 else tuple(us)
        thunks = gradient_thunks(entry, dy)
        for position, (thunk, t) in enumerate(zip(thunks, tangents)):
            if thunk is None and t is not None:  # (as backward refuses it on the path)
                raise AutodiffError(
                    f"the gradient of '{entry.name}' gives no gradient for its "
                    f"{input_name(entry, position)}, which has a tangent; return one for every "
                    "differentiable input (forward mode transposes the gradient to get the JVP).")
        grads = [None if thunk is None or t is None else thunk() for thunk, t in zip(thunks, tangents)]
        for g, x in zip(grads, entry.inputs):
            if g is not None and (not isinstance(g, Tensor) or g.shape != x.shape):
                raise AutodiffError(
                    f"the gradient of '{entry.name}' returned "
                    f"{f'shape {g.shape}' if isinstance(g, Tensor) else type(g).__name__} for an input "
                    f"of shape {x.shape}; a gradient is a Tensor of its input's shape (forward mode "
                    "transposes it to get the JVP).")
        return grads

    return transpose(gradient, outputs, tangents)


def forward_mode_records() -> bool:
    """Whether a forward-mode recorder records in this context."""
    for recorder in recorders_var.get():  # noqa: SIM110  (a loop: cheaper than any() of a generator)
        if recorder.__class__ is JvpRecorder:
            return True
    return False


@contextlib.contextmanager
def hidden_from_forward_mode() -> Iterator[None]:
    """Forward-mode recorders do not see the ops run inside the block (a function with its own
    derivatives: they see its recorded entry instead); other recorders do."""
    current = recorders_var.get()
    token = recorders_var.set(tuple([r for r in current if not isinstance(r, JvpRecorder)]))
    try:
        yield
    finally:
        recorders_var.reset(token)


def _seeded(primals: Sequence[Any], tangents: Sequence[Any], fname: str,
            recorder: JvpRecorder) -> list[Any]:
    """The primals as fresh tensors (their tangents seeded on `recorder`), in their trees."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise AutodiffError(f"{fname}: primals and tangents must be tuples (one entry per positional "
                            f"argument), got {type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_tree = array_leaves(list(primals), "primals", fname)
    try:  # (an integer primal's tangent is ignored: None will do)
        given: Any = list(tangents)
        t_leaves: list[Any] = p_tree.flatten_up_to(given)
        if any(t is not None and is_node(t) for t in t_leaves):
            raise ValueError("a tangent is a tree where its primal is a leaf")
    except ValueError:
        raise AutodiffError(f"{fname}: the tangents must have the primals' structure (one tangent per "
                            "primal tensor, nested alike).") from None
    leaves = []
    for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
        x = fresh(asarray(p))
        if x._dtype.is_inexact:
            tangent = asarray(t)
            if tangent.shape != x.shape:
                raise AutodiffError(f"{fname}: tangent {i} has shape {tangent.shape}, its primal "
                                    f"{x.shape}; a tangent has its primal's shape.")
            if tangent._dtype.kind != x._dtype.kind:
                raise AutodiffError(
                    f"{fname}: tangent {i} has dtype {tangent.dtype.name}, its primal {x.dtype.name}; "
                    "a tangent is of its primal's dtype (cast it with .astype).")
            recorder.seed(x, tangent if tangent._dtype is x._dtype else tangent.astype(x._dtype))
        leaves.append(x)
    return tree_unflatten(p_tree, leaves)


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> Any:
    """``(f(*primals), tangent_out)``: f's value and its Jacobian-vector product with
    `tangents` (one per primal, of its shape and dtype; trees of tensors alike). Integer
    primals take no tangent (theirs is ignored). With `has_aux`, f returns ``(output, aux)``
    and the result is ``(output, tangent_out, aux)``."""
    valid.function(f, "jvp")
    recorder = JvpRecorder()
    args = _seeded(primals, tangents, "jvp", recorder)
    push_recorder(recorder)
    try:
        result = f(*args)
    finally:
        remove_recorder(recorder)
    if has_aux and not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise AutodiffError(f"jvp: with has_aux=True the function must return (output, aux); it "
                            f"returned {type(result).__name__}"
                            f"{f' of length {len(result)}' if isinstance(result, (tuple, list)) else ''}. "
                            "Return (output, aux), or drop has_aux.")
    out, aux = result if has_aux else (result, None)
    leaves, tree = tree_flatten(out)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise AutodiffError(f"jvp: the function must return Tensors (in tuples, lists or dicts), "
                                f"got {type(leaf).__name__}")
    tangent_leaves = [_output_tangent(recorder, o) for o in leaves]
    tangent_out = tree_unflatten(tree, tangent_leaves)
    return (out, tangent_out, aux) if has_aux else (out, tangent_out)


def _output_tangent(recorder: JvpRecorder, out: Tensor) -> Tensor:
    found = recorder.tangent_of(out)
    return found if found is not None else zeros_like(out)


def linearize(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(f(*primals), f_jvp)`` where ``f_jvp(*tangents)`` gives the JVP at `primals` (it runs
    f's forward pass again with the new tangents)."""
    valid.function(f, "linearize")
    leaves, tree = array_leaves(list(primals), "primals", "linearize")  # (as jvp converts them)
    primals = tuple(tree_unflatten(tree, [asarray(p) for p in leaves]))
    out = f(*primals)

    @functools.wraps(f)
    def f_jvp(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise AutodiffError(f"linearize: the JVP function takes one tangent per primal "
                                f"({len(primals)}), got {len(tangents)}.")
        return jvp(f, primals, tangents)[1]

    return out, f_jvp
