"""The tape: what ran between the watched inputs and the output, and the reverse walk over it.

A tape watches some tensors; an op is recorded only if one of its inputs is watched, and its
outputs become watched. ``backward`` keeps the entries on a path to the output, calls each
kernel's gradient (looked up now, so an override in force applies), and accumulates.
Gradients are computed with ops, so an enclosing tape records them: that is higher order.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tensorplug.core.context import CustomRule, gradient_var, record_custom, state
from tensorplug.core.runtime import ACTIVE
from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError, GradientNotFoundError
from tensorplug.families.creation.ops import zeros_like
from tensorplug.families.elementwise.ops import add
from tensorplug.kernels.dispatcher import wrap
from tensorplug.registry.gradients import find_gradient
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["Differentiating", "Tape", "Entry", "backward", "backward_from", "gradient_thunks", "fresh"]

class Entry:
    __slots__ = ("name", "inputs", "attrs", "outputs", "custom")

    def __init__(self, name: str, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any],
                 outputs: tuple[Tensor, ...], custom: CustomRule | None = None) -> None:
        self.name = name
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = outputs
        self.custom = custom


class Differentiating:
    """The recorders that differentiate (tapes, forward mode's): while one records, tp.jit runs
    the function eagerly and optimizer updates are cut off from it (``taping``)."""

    __slots__ = ()


class Tape(Differentiating):
    """Records the ops that depend on the watched tensors. Only floating tensors (real or
    complex) are watched (a path through integers or bools carries no gradient), so an op
    recorded here lies downstream of a source through floating tensors."""

    __slots__ = ("watched", "entries", "sources")

    def __init__(self, sources: Iterable[Tensor]) -> None:
        self.sources = list(sources)  # keeps the watched tensors (and their ids) alive
        self.watched = {id(t) for t in self.sources if t._dtype.is_inexact}
        self.entries: list[Entry] = []

    def record(self, name: str, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any],
               outputs: tuple[Tensor, ...], custom: CustomRule | None = None,
               start: int = 0, direct: Any = None) -> None:
        watched = self.watched
        for t in inputs:
            if id(t) in watched:
                entry = None
                for o in outputs:
                    if o._dtype.is_inexact:
                        if entry is None:
                            entry = Entry(name, inputs, attrs, outputs, custom)
                            self.entries.append(entry)
                        watched.add(id(o))
                return


def taping() -> bool:
    """Whether an autodiff recorder (a tape, forward mode's) records in this context (kernel
    counters and profiles do not count)."""
    return any(isinstance(r, Differentiating) for r in state.tapes)


def fresh(t: Tensor) -> Tensor:
    """A new tensor object with t's values, linked to t (identity gradient) on recording tapes:
    lets one grad call watch an argument separately from another."""
    out = wrap(t._data, t._backend, t._dtype)
    record_custom("Identity", (t,), (out,), lambda dy: (dy,), lambda ts: ts[0])
    return out


class _GradPlan:
    """What backward needs of a kernel's gradient, worked out once per gradient config: the
    kernel's spec, the positions of the inputs and outputs it saves, the input names."""

    __slots__ = ("config", "spec", "saved_inputs", "saved_outputs", "input_names", "inputs", "saves_inputs")

    def __init__(self, config: Any) -> None:
        spec = get_kernel_spec(config.kernel_name)
        self.config = config
        self.spec = spec
        if spec.variadic:  # saving the variadic input saves every tensor passed under it
            self.saved_inputs: tuple[int, ...] = (-1,) if config.inputs_to_save else ()
        else:
            self.saved_inputs = tuple(spec.inputs.index(n) for n in config.inputs_to_save)
        self.saved_outputs = tuple(spec.outputs.index(n) for n in config.outputs_to_save)
        self.input_names = frozenset(spec.inputs)
        self.inputs = spec.inputs  # (in spec order: the thunks' order)
        # what is saved is the entry's inputs as they are (their tuple serves)
        self.saves_inputs = (not spec.variadic and not self.saved_outputs
                             and self.saved_inputs == tuple(range(len(spec.inputs))))



def _constant(g: Any) -> Callable[[], Any]:
    return lambda: g


def gradient_thunks(entry: Entry, dy: Any, config: Any = None) -> list[Callable[[], Any] | None]:
    """One thunk (or None) per input of `entry`, from its gradient in force, or from `config`
    (a GradConfig) if given (what backward calls, and what ``tensorplug.testing.needs`` runs
    abstractly); `dy` is the upstream gradient (a tuple for several outputs)."""
    if entry.custom is not None:
        results = entry.custom.grad(dy)
        if isinstance(results, Tensor) or not isinstance(results, (tuple, list)):
            results = (results,)
        if len(results) != len(entry.inputs):
            raise AutodiffError(
                f"the custom gradient of '{entry.name}' returned {len(results)} gradient(s) for "
                f"{len(entry.inputs)} input(s); return one per positional input (None for none)."
            )
        return [_constant(g) if g is not None else None for g in results]
    if config is None:
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
    plans = ACTIVE.runtime.grad_plans  # (by kernel name, for the config each was made for)
    plan = plans.get(entry.name)
    if plan is None or plan.config is not config:  # (the first call, or another gradient in force)
        plan = plans[entry.name] = _GradPlan(config)
    spec, ins, outs = plan.spec, plan.saved_inputs, plan.saved_outputs
    inputs, outputs = entry.inputs, entry.outputs
    if plan.saves_inputs:
        saved = inputs
    elif ins == (-1,):
        saved = inputs + tuple(outputs[i] for i in outs)
    elif outs:
        saved = tuple(inputs[i] for i in ins) + tuple(outputs[i] for i in outs)
    else:
        saved = tuple(map(inputs.__getitem__, ins))
    result = config.grad_func(dy, saved, entry.attrs)
    if result.__class__ is not dict and not isinstance(result, Mapping):
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
        return [functools.partial(part, i) for i in range(len(entry.inputs))]
    if not result.keys() <= plan.input_names:
        unknown = sorted(str(n) for n in result if n not in spec.inputs)
        raise AutodiffError(
            f"the gradient of kernel '{entry.name}' returned gradients for {unknown}, which are "
            f"not its inputs; its inputs are {list(spec.inputs)}: key the dict by those names."
        )
    return list(map(result.get, plan.inputs))


def input_name(entry: Entry, position: int) -> str:
    """An entry's input as messages name it: by the spec's name (``input 'xs[2]'`` for a
    variadic one), or by position for a custom gradient's (``input 1``)."""
    if entry.custom is not None:
        return f"input {position}"
    spec = get_kernel_spec(entry.name)
    return f"input '{spec.inputs[0]}[{position}]'" if spec.variadic else f"input '{spec.inputs[position]}'"


def _path(tape: Tape, outputs: Sequence[Tensor], sources: Sequence[Tensor]) -> tuple[list[Entry], set[int]]:
    """The entries between the sources and the outputs, latest first, and the ids of the
    tensors that need a gradient: reached from a source through floating tensors (a path
    through integers carries no gradient) and leading to an output."""
    if len(sources) == len(tape.sources) and all(map(operator.is_, sources, tape.sources)):
        reached = tape.watched  # the tape watches exactly what descends from its sources
    else:
        reached = {id(s) for s in sources if s._dtype.is_inexact}
        for entry in tape.entries:
            for t in entry.inputs:
                if id(t) in reached:
                    for o in entry.outputs:
                        if o._dtype.is_inexact:
                            reached.add(id(o))
                    break
    needed = {id(o) for o in outputs}
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
    return backward_from((output,), (seed,), tape, sources)


def backward_from(outputs: Sequence[Tensor], seeds: Sequence[Tensor], tape: Tape,
                  sources: Sequence[Tensor]) -> list[Tensor]:
    """Gradients of the sum of `outputs` weighted by `seeds` (one of each output's shape) with
    respect to each of `sources`: one backward pass for all of them (``tp.vjp`` of a tree)."""
    running = [""]  # the kernel whose gradient runs (for profiles: see context.gradient_var)
    token = gradient_var.set(running)
    try:
        return _backward(tape, outputs, seeds, sources, running)
    finally:
        gradient_var.reset(token)


def _backward(tape: Tape, outputs: Sequence[Tensor], seeds: Sequence[Tensor], sources: Sequence[Tensor],
              running: list[str]) -> list[Tensor]:
    path, needed = _path(tape, outputs, sources)
    grads: dict[int, Tensor] = {}
    for output, seed in zip(outputs, seeds):  # (an output given twice gets both seeds)
        prev = grads.get(id(output))
        grads[id(output)] = seed if prev is None else add(prev, seed)
    get = grads.get
    for entry in path:
        outputs = entry.outputs
        if len(outputs) == 1:
            dy: Any = get(id(outputs[0]))
            if dy is None:
                continue
        else:
            found = [get(id(o)) for o in outputs]
            if all(d is None for d in found):
                continue
            dy = tuple(d if d is not None else zeros_like(o) for d, o in zip(found, outputs))
        running[0] = entry.name
        thunks = gradient_thunks(entry, dy)
        for position, (t, thunk) in enumerate(zip(entry.inputs, thunks)):
            key = id(t)
            if key not in needed:
                continue
            if thunk is None:
                raise AutodiffError(
                    f"the gradient of kernel '{entry.name}' gives no gradient for its "
                    f"{input_name(entry, position)}, which is on the differentiation path; "
                    "return one for every differentiable input."
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
            prev = get(key)
            grads[key] = g if prev is None else add(prev, g)
    return [grads[id(s)] if id(s) in grads else zeros_like(s) for s in sources]
