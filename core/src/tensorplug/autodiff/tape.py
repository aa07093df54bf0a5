"""The tape: what ran between the watched inputs and the output, and the reverse walk over it.

A tape watches some tensors; an op is recorded only if one of its inputs is watched, and its
outputs become watched. ``backward`` keeps the entries on a path to the output, calls each
kernel's gradient (looked up now, so an override in force applies), and accumulates.
Gradients are computed with ops, so an enclosing tape records them: that is higher order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._state import state
from ..engine import wrap
from ..errors import AutodiffError, GradientNotFoundError
from ..registry.gradients import find_gradient
from ..registry.specs import get_kernel_spec
from ..tensor import Tensor

__all__ = ["Tape", "Entry", "backward", "record_custom", "fresh"]

# custom gradient: receives the upstream gradient(s), returns one gradient (or None) per input
CustomGrad = Callable[[Any], Sequence[Any]]


class Entry:
    __slots__ = ("name", "inputs", "attrs", "outputs", "custom")

    def __init__(self, name: str, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any],
                 outputs: tuple[Tensor, ...], custom: CustomGrad | None = None) -> None:
        self.name = name
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = outputs
        self.custom = custom


class Tape:
    """Records the ops that depend on the watched tensors."""

    __slots__ = ("watched", "entries", "sources")

    def __init__(self, sources: Iterable[Tensor]) -> None:
        self.sources = list(sources)  # keeps the watched tensors (and their ids) alive
        self.watched = {id(t) for t in self.sources}
        self.entries: list[Entry] = []

    def record(self, name: str, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any],
               outputs: tuple[Tensor, ...], custom: CustomGrad | None = None) -> None:
        watched = self.watched
        for t in inputs:
            if id(t) in watched:
                self.entries.append(Entry(name, inputs, attrs, outputs, custom))
                for o in outputs:
                    watched.add(id(o))
                return


def record_custom(name: str, inputs: tuple[Tensor, ...], outputs: tuple[Tensor, ...],
                  custom: CustomGrad) -> None:
    """Record an entry with its own gradient function on every recording tape."""
    for tape in state.tapes:
        tape.record(name, inputs, {}, outputs, custom)


def fresh(t: Tensor) -> Tensor:
    """A new tensor object with t's values, linked to t (identity gradient) on recording tapes:
    lets one grad call watch an argument separately from another."""
    out = wrap(t._data, t._backend, t._dtype)
    record_custom("Identity", (t,), (out,), lambda dy: (dy,))
    return out


def _differentiable(t: Tensor) -> bool:
    return t._dtype.kind == "float"


def _zeros_like(t: Tensor) -> Tensor:
    from ..ops.creation import zeros_like
    return zeros_like(t)


def _add(a: Tensor, b: Tensor) -> Tensor:
    from ..ops.elementwise import add
    return add(a, b)


_plans: dict[Any, tuple[Any, tuple[int, ...], tuple[int, ...]]] = {}


def _plan(config: Any) -> tuple[Any, tuple[int, ...], tuple[int, ...]]:
    """(spec, positions of the saved inputs, positions of the saved outputs) of a gradient."""
    plan = _plans.get(config)
    if plan is None:
        spec = get_kernel_spec(config.kernel_name)
        if spec.variadic:  # saving the variadic input saves every tensor passed under it
            ins: tuple[int, ...] = (-1,) if config.inputs_to_save else ()
        else:
            ins = tuple(spec.inputs.index(n) for n in config.inputs_to_save)
        outs = tuple(spec.outputs.index(n) for n in config.outputs_to_save)
        plan = _plans[config] = (spec, ins, outs)
    return plan


def _grads_of_entry(entry: Entry, dys: list[Tensor]) -> list[Callable[[], Any] | None]:
    """One thunk (or None) per input of `entry`."""
    dy: Any = dys[0] if len(dys) == 1 else tuple(dys)
    if entry.custom is not None:
        results = entry.custom(dy)
        if isinstance(results, Tensor) or not isinstance(results, (tuple, list)):
            results = (results,)
        if len(results) != len(entry.inputs):
            raise AutodiffError(
                f"the custom gradient of '{entry.name}' returned {len(results)} gradient(s) for "
                f"{len(entry.inputs)} input(s); return one per positional input (None for none)."
            )
        return [(lambda g=g: g) if g is not None else None for g in results]
    config = find_gradient(entry.name)
    if config is None:
        spec = get_kernel_spec(entry.name)
        why = ("its kernel spec says it is not differentiable" if not spec.differentiable
               else "no gradient is registered for it")
        raise GradientNotFoundError(
            f"Cannot differentiate through kernel '{entry.name}': {why}, and it lies on the path "
            "from the differentiated input to the output. Register a gradient with "
            "tensorplug.extend.register_gradient(GradConfig(...)), give the computation a gradient "
            "with tp.custom_grad, or cut the path with tp.stop_gradient."
        )
    spec, ins, outs = _plan(config)
    inputs, outputs = entry.inputs, entry.outputs
    if ins == (-1,):
        saved = inputs + tuple(outputs[i] for i in outs)
    else:
        saved = tuple(inputs[i] for i in ins) + tuple(outputs[i] for i in outs)
    result = config.grad_func(dy, saved, entry.attrs)
    if not isinstance(result, Mapping):
        raise AutodiffError(
            f"the gradient of kernel '{entry.name}' returned a {type(result).__name__}; a gradient "
            "returns a dict {input name: zero-argument function giving that input's gradient}."
        )
    if spec.variadic:
        thunk = result.get(spec.inputs[0])
        if thunk is None:
            return [None] * len(entry.inputs)
        cache: list[Any] = []

        def part(i: int) -> Any:
            if not cache:
                cache.append(list(thunk()))
            return cache[0][i]
        return [(lambda i=i: part(i)) for i in range(len(entry.inputs))]
    return [result.get(n) for n in spec.inputs]


def _path(tape: Tape, output: Tensor, sources: Sequence[Tensor]) -> tuple[list[Entry], set[int]]:
    """The entries between the sources and the output, latest first, and the ids of the
    tensors that need a gradient: reached from a source through floating tensors (a path
    through integers carries no gradient) and leading to the output."""
    reached = {id(s) for s in sources if s._dtype.kind == "float"}
    for entry in tape.entries:
        for t in entry.inputs:
            if id(t) in reached:
                for o in entry.outputs:
                    if o._dtype.kind == "float":
                        reached.add(id(o))
                break
    needed = {id(output)}
    path = []
    for entry in reversed(tape.entries):
        for o in entry.outputs:
            if id(o) in needed:
                break
        else:
            continue
        on_path = False
        for t in entry.inputs:
            if id(t) in reached:
                needed.add(id(t))
                on_path = True
        if on_path:
            path.append(entry)
    return path, needed


def backward(tape: Tape, output: Tensor, seed: Tensor, sources: Sequence[Tensor]) -> list[Tensor]:
    """Gradients of `output` (weighted by `seed`) with respect to each of `sources`."""
    path, needed = _path(tape, output, sources)
    grads: dict[int, Tensor] = {id(output): seed}
    for entry in path:
        if len(entry.outputs) == 1:
            d = grads.get(id(entry.outputs[0]))
            if d is None:
                continue
            dys = [d]
        else:
            found = [grads.get(id(o)) for o in entry.outputs]
            if all(d is None for d in found):
                continue
            dys = [d if d is not None else _zeros_like(o) for d, o in zip(found, entry.outputs)]
        thunks = _grads_of_entry(entry, dys)
        for t, thunk in zip(entry.inputs, thunks):
            if id(t) not in needed:
                continue
            if thunk is None:
                raise AutodiffError(
                    f"the gradient of kernel '{entry.name}' gives no gradient for an input that is "
                    "on the differentiation path; return one for every differentiable input."
                )
            g = thunk()
            if not isinstance(g, Tensor):
                raise AutodiffError(f"the gradient of kernel '{entry.name}' returned a "
                                    f"{type(g).__name__}, not a Tensor")
            g_shape, t_shape = g._backend.shape_of(g._data), t._backend.shape_of(t._data)
            if g_shape != t_shape:
                raise AutodiffError(
                    f"the gradient of kernel '{entry.name}' returned shape {g_shape} for an input of "
                    f"shape {t_shape}; a gradient must match its input's shape (reduce broadcast axes "
                    "with tensorplug.extend.unbroadcast)."
                )
            if g._dtype is not t._dtype:
                g = g.astype(t._dtype)
            prev = grads.get(id(t))
            grads[id(t)] = g if prev is None else _add(prev, g)
    return [grads[id(s)] if id(s) in grads else _zeros_like(s) for s in sources]
