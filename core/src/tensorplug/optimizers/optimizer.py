"""The Optimizer base class: an explicit state tree (``OptimizerState``), one pure update rule
per subclass, and the APIs over them: TF.js's (``minimize``, ``apply_gradients``), a functional
``update`` over pytrees (the optimizer keeps the state), and optax's explicit form (``init``,
``apply``: the caller keeps the state).

A step reads the state, computes the new parameters and a new state from it with ops, and
stores that state; under ``tp.jit`` the optimizer is a state holder like a Variable (its state
goes into the compiled step and comes out of it, see ``tensorplug.transforms.jit.state``). Updates are cut
off from any recording tape (``tp.stop_gradient`` semantics: a step is never differentiated).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, overload

import numpy as np

from tensorplug.core.context import backend_var, jit_trace_var, recorders_var
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.errors import (
    DTypeError,
    HyperparameterError,
    ShapeError,
    StateError,
    VariableNotFoundError,
)
from tensorplug.families._common.convert import asarray
from tensorplug.optimizers.clipping import clip_by_global_norm, clip_by_value
from tensorplug.optimizers.hyperparameters import clipping_options, real
from tensorplug.optimizers.pairing import Grads, leaf_items, updated_tree, variable_pairs
from tensorplug.optimizers.state import OptimizerState, SlotKey
from tensorplug.optimizers.step import Hyperparameter, Step, on_backend
from tensorplug.transforms.autodiff.api import stop_gradient, variable_grads
from tensorplug.transforms.autodiff.tape import taping
from tensorplug.transforms.jit.state import PackedState
from tensorplug.tree_util import tree_flatten

__all__ = ["Optimizer", "Hyperparameter", "Step", "VariableNotFoundError", "LearningRate"]

#: a number, or a schedule: a callable of the step number (a float64 scalar tensor, counting
#: from 1) returning the learning rate, written with arithmetic (and tp ops) so that tp.jit can
#: trace it into a compiled step
LearningRate = float | Callable[[Tensor], Any]
_MISSING: Any = object()


class Optimizer:
    """Base class of tensorplug's optimizers (as TF.js core ships them).

    **State.** ``opt.state`` is an ``OptimizerState``: the step count, the hyperparameters and
    the slots per variable, all of it. A step reads it and stores a new one; nothing else about
    the optimizer changes while it trains, so ``tp.jit`` carries the optimizer's state in and
    out of a compiled step as it does a Variable's value. Setting ``opt.state`` (a checkpoint)
    replaces it.

    **Gradient clipping.** Every optimizer takes ``clip_value=`` (each gradient element limited
    to ``[-clip_value, clip_value]``) and ``clip_norm=`` (the step's gradients scaled together
    so that their global L2 norm is at most ``clip_norm``, as ``clip_by_global_norm``; applied
    after ``clip_value``), kept in the state's hyperparameters when given. To clip otherwise,
    clip the gradients (``clip_by_norm``, ...) and pass them to ``apply_gradients``/``update``.

    **Writing an optimizer.** A subclass

    - passes its settings to ``super().__init__(learning_rate, name=value, ...)`` and declares
      each on the class as ``name = Hyperparameter()`` (so that ``opt.name`` reads and sets it
      in the state);
    - sets ``slot_names``: the tensors it keeps per variable (zeros before the first step, of
      the variable's shape and dtype, on its backend);
    - writes ``_update(param, grad, slots, step)`` with ops, returning ``(new_param,
      new_slots)``, where `step` (a ``Step``) gives what the rule may read: ``step.number``,
      ``step.hyperparameters`` and ``step.scalars(param)``; the rule reads nothing else of the
      optimizer (an attribute it read would be compiled into a tp.jit step and never seen
      again);
    - may override ``_scalars(step, learning_rate, hyperparameters)``: the values that change
      from step to step (default: the learning rate), written with arithmetic operators only,
      so that they come out as numbers for numbers (host values, for an eager step's fused
      kernel) and as tensors for tensors (inside a step, traced by tp.jit).
    """

    slot_names: tuple[str, ...] = ()

    def __init__(self, learning_rate: LearningRate, *, clip_norm: float | None = None,
                 clip_value: float | None = None, **hyperparameters: Any) -> None:
        clipping = clipping_options(type(self).__name__, clip_norm=clip_norm, clip_value=clip_value)
        hyperparameters = {**hyperparameters, **clipping}
        self._stored: OptimizerState | PackedState = OptimizerState(
            iterations=_asarray(np.int64(0)),
            hyperparameters={"learning_rate": self._learning_rate_value(learning_rate), **hyperparameters},
            slots={})
        # per slot key, the Variable its slots belong to (weakly; None: a pytree leaf's, or
        # slots from a state set by hand, adopted by the next Variable of that name)
        self._owners: dict[SlotKey, weakref.ref[Tensor] | None] = {}
        self._tree_structure: Any = None  # the functional update's parameter tree

    # -- the state -----------------------------------------------------------------------------
    @property
    def state(self) -> OptimizerState:
        """The optimizer's whole state; setting it (a checkpoint restored) replaces it."""
        self._report()
        return self._unpacked()

    @state.setter
    def state(self, new: OptimizerState) -> None:
        """Replace the whole state (a checkpoint: ``opt.state = tp.load(path)``, or a state
        read from an optimizer of the same kind and settings)."""
        if not isinstance(new, OptimizerState):
            raise StateError(f"{type(self).__name__}.state takes an OptimizerState, got "
                            f"{type(new).__name__}; pass one read from an optimizer's .state.")
        own = self.state.hyperparameters["learning_rate"]
        if new.hyperparameters.get("learning_rate") is None and callable(own):
            # a state loaded by tp.load: its schedule (code, not data) was not saved; keep ours
            new = replace(new, hyperparameters={**new.hyperparameters, "learning_rate": own})
        self._replace(new)
        self._owners = dict.fromkeys(new.slots)

    def _unpacked(self) -> OptimizerState:
        """The stored state, cut into tensors if a compiled call left it packed (not reported
        to a tp.jit trace: for initialization, which is no step)."""
        stored = self._stored
        if isinstance(stored, PackedState):
            stored = self._stored = stored.unpack()
        return stored

    def jit_state(self) -> OptimizerState | PackedState:
        """tp.jit's state-holder protocol: the state as stored (``tensorplug.transforms.jit.state``)."""
        return self._stored

    def set_jit_state(self, new: OptimizerState | PackedState) -> None:
        """tp.jit's state-holder protocol: replace the stored state by `new` (as ``jit_state()`` gave)."""
        self._stored = new

    def _replace(self, new: OptimizerState) -> None:
        self._report()
        self._stored = new

    def _report(self) -> None:
        """Tell a tp.jit trace in progress that this optimizer's state is read or written."""
        trace = jit_trace_var.get()
        if trace is not None:
            trace.touch(self)

    def _set_hyperparameters(self, values: Mapping[str, Any]) -> None:
        current = self.state
        self._replace(replace(current, hyperparameters={**current.hyperparameters, **values}))

    @property
    def iterations(self) -> int:
        """The number of steps taken (``apply_gradients``, ``minimize`` or ``update`` calls);
        setting it (a checkpoint restored) makes later steps count from there."""
        return int(self.state.iterations)

    @iterations.setter
    def iterations(self, value: int) -> None:
        current = self.state
        count = _asarray(np.int64(value), backend=current.iterations.backend)
        self._replace(replace(current, iterations=count))

    @property
    def learning_rate(self) -> LearningRate:
        """The learning rate: a number, or the schedule given."""
        lr = self.state.hyperparameters["learning_rate"]
        return lr if callable(lr) else float(lr)

    @learning_rate.setter
    def learning_rate(self, value: LearningRate) -> None:
        self._set_hyperparameters({"learning_rate": self._learning_rate_value(value)})

    def _learning_rate_value(self, value: LearningRate) -> Any:
        """A learning rate as the state keeps it: a schedule as it is, a number as a float64
        scalar tensor (a new value between compiled steps is a new input, not a new compile)."""
        if callable(value):
            return value
        if not real(type(self).__name__, "learning_rate", value) > 0:
            raise HyperparameterError(f"{type(self).__name__}: learning_rate must be > 0, got {value!r}")
        return _asarray(np.float64(value))

    def current_learning_rate(self, step: int | None = None) -> float:
        """The learning rate for `step` (default: the next step); schedules are called with it."""
        lr = self.state.hyperparameters["learning_rate"]
        if not callable(lr):
            return float(lr)
        step = self.iterations + 1 if step is None else step
        return float(lr(_asarray(np.float64(step))))

    # -- the rule subclasses write -------------------------------------------------------------
    def _scalars(self, step: Any, learning_rate: Any, hyperparameters: Mapping[str, Any]) -> dict[str, Any]:
        """The values of one step that ``_update`` reads through ``Step.scalars`` (and a fused
        kernel through ``Step.numbers``), from the step number (counting from 1) and the
        learning rate: Python numbers, or scalar tensors inside a step. Arithmetic only."""
        return {"learning_rate": learning_rate}

    def _update(self, param: Tensor, grad: Tensor, slots: Mapping[str, Tensor],
                step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        """The new parameter and slots from the old ones and the gradient (all of the
        parameter's dtype, on its backend), with ops."""
        raise NotImplementedError

    # -- the TF.js-style API -------------------------------------------------------------------
    @overload
    def minimize(self, loss_fn: Callable[[], Any], variables: Sequence[Variable] | None = None,
                 return_loss: Literal[True] = True) -> Tensor: ...

    @overload
    def minimize(self, loss_fn: Callable[[], Any], variables: Sequence[Variable] | None = None,
                 *, return_loss: Literal[False]) -> None: ...

    def minimize(self, loss_fn: Callable[[], Any], variables: Sequence[Variable] | None = None,
                 return_loss: bool = True) -> Tensor | None:
        """Differentiate `loss_fn` (no arguments, scalar result) with respect to `variables`
        (default: every trainable Variable), apply one update, and return the loss."""
        vs = None if variables is None else list(variables)
        loss, grads = variable_grads(loss_fn, vs)
        if vs is None:
            self.apply_gradients(grads)
        else:  # (pairs made here: nothing to check)
            self._apply_to_variables([(v, grads[v._name]) for v in vs])
        return loss if return_loss else None

    def apply_gradients(self, grads: Grads) -> None:
        """One update of each variable from its gradient: `grads` is ``{variable name: grad}``
        (what ``tp.variable_grads`` returns) or a sequence of ``(variable, grad)`` pairs. A
        ``None`` gradient leaves its variable alone."""
        self._apply_to_variables(variable_pairs(grads, f"{type(self).__name__}.apply_gradients"))

    def _apply_to_variables(self, pairs: Sequence[tuple[Variable, Any]]) -> None:
        items = [(var._name, var, g) for var, g in pairs if g is not None]
        self._init_slots(items, owned=True)
        for (_, var, _), value in zip(items, self._apply(items)):
            var.assign(value)

    # -- the functional (JAX-style) API --------------------------------------------------------
    def update(self, params: Any, grads: Any) -> Any:
        """New parameters from `params` and `grads`, two pytrees (nested lists, tuples, dicts) of
        the same structure, e.g. what ``tp.grad`` returns for them. The slots live in the
        optimizer's state, keyed by leaf position: use one optimizer per parameter tree."""
        leaves, structure, items = leaf_items(params, grads, f"{type(self).__name__}.update")
        if self._tree_structure is None:
            self._tree_structure = structure
        elif structure != self._tree_structure:
            raise ShapeError(f"{type(self).__name__}.update: the parameter tree changed structure since "
                             "the first call; use a new optimizer for a new set of parameters.")
        self._init_slots(items, owned=False)
        return updated_tree(leaves, structure, items, self._apply(items))

    # -- the explicit (optax-style) API: the caller keeps the state -----------------------------
    def init(self, params: Any) -> OptimizerState:
        """The state of a first step on `params` (a pytree of tensors): step 0, this optimizer's
        hyperparameters and zero slots per leaf (by leaf position). The optimizer keeps none of
        it: pass it to ``apply``, which returns the next one."""
        stored = self._unpacked()
        leaves, _ = tree_flatten(params)
        params = [p if isinstance(p, Tensor) else _asarray(p) for p in leaves]
        slots: dict[SlotKey, Mapping[str, Tensor]] = {
            i: {name: _zeros_like(p) for name in self.slot_names} for i, p in enumerate(params)}
        return OptimizerState(_asarray(np.int64(0)), stored.hyperparameters, slots)

    def apply(self, state: OptimizerState, params: Any, grads: Any) -> tuple[Any, OptimizerState]:
        """One step from `state` (``init``'s, or a previous ``apply``'s): ``(new params, new
        state)``. A pure function: the optimizer's own state is neither read nor changed, so
        ``tp.jit(step)(params, opt_state, batch)`` carries the state in and out as arguments
        and results, as optax's ``update`` does."""
        if not isinstance(state, OptimizerState):
            raise StateError(f"{type(self).__name__}.apply takes the OptimizerState that init or apply "
                             f"returned, got {type(state).__name__}.")
        leaves, structure, items = leaf_items(params, grads, f"{type(self).__name__}.apply")
        missing = [i for i, _, _ in items if i not in state.slots]
        if missing:
            raise StateError(f"{type(self).__name__}.apply: the state has no slots for parameter leaves "
                             f"{missing}; make it with init(params) for this parameter tree.")
        out, new = self._next(state, items)
        return updated_tree(leaves, structure, items, out), new

    # -- inspection ----------------------------------------------------------------------------
    def get_slots(self, variable: Variable | str) -> dict[str, Tensor]:
        """The slot tensors kept for a variable (empty before its first update)."""
        name = variable if isinstance(variable, str) else variable.name
        return dict(self.state.slots.get(name, {}))

    def get_config(self) -> dict[str, Any]:
        """The learning rate and the settings (the state's hyperparameters, as Python values)."""
        settings = {k: v for k, v in self.state.hyperparameters.items() if k != "learning_rate"}
        return {"learning_rate": self.learning_rate, **settings}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"

    # -- internals -----------------------------------------------------------------------------
    def _init_slots(self, items: Sequence[tuple[SlotKey, Tensor, Any]], owned: bool) -> None:
        """Zero slots for the parameters of `items` (slot key, parameter, gradient) seen for the
        first time, or for a Variable (`owned`: the parameters are Variables, which own their
        slots) that took the name of one gone. This is initialization (optax's ``init``), not
        a step: it does not report to a tp.jit trace, so that a trace finds the slots already
        there (zeros made from host data, concrete in a trace too) and the compiled step's
        state keeps the layout of its first call."""
        new: dict[SlotKey, dict[str, Tensor]] = {}
        for key, param, _ in items:
            owner = param if owned else None
            known = self._owners.get(key, _MISSING)
            if known is _MISSING or (known is not None and owner is not None and known() is not owner):
                new[key] = {name: _zeros_like(param) for name in self.slot_names}
                self._owners[key] = None if owner is None else weakref.ref(owner)
            elif known is None and owner is not None:  # slots of a state set by hand: now its
                self._owners[key] = weakref.ref(owner)
        if new:
            stored = self._unpacked()
            self._stored = replace(stored, slots={**stored.slots, **new})

    def _apply(self, items: Sequence[tuple[SlotKey, Tensor, Any]]) -> list[Tensor]:
        """One step on the stored state: new values of the parameters of `items` (slot key,
        parameter, gradient); the new state is stored."""
        out, new = self._next(self.state, items)
        self._replace(new)
        return out

    def _next(self, current: OptimizerState, items: Sequence[tuple[SlotKey, Tensor, Any]]
              ) -> tuple[list[Tensor], OptimizerState]:
        """One step from `current`: the new values of the parameters of `items` and the new state."""
        count = current.iterations
        if backend_var.get() is count._backend:
            number = count + 1
        else:
            with on_backend(count):
                number = count + 1
        step = Step(self, number, current.hyperparameters)
        items = _clipped(items, current.hyperparameters)
        slots = dict(current.slots)
        out = []
        for key, param, grad in items:
            new_param, slots[key] = self._step(param, grad, slots[key], step)
            out.append(new_param)
        return out, OptimizerState(number, current.hyperparameters, slots)

    def _step(self, param: Tensor, grad: Any, slots: Mapping[str, Tensor],
              step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        if backend_var.get() is not param._backend:  # run on the parameter's backend
            with on_backend(param):
                return self._step_here(param, grad, slots, step)
        return self._step_here(param, grad, slots, step)

    def _step_here(self, param: Tensor, grad: Any, slots: Mapping[str, Tensor],
                   step: Step) -> tuple[Tensor, dict[str, Tensor]]:
        if recorders_var.get() and taping():  # cut the update off from the tape (slots are never watched)
            p, g = stop_gradient(param), stop_gradient(grad)
        else:
            p, g = param, (grad if isinstance(grad, Tensor) else _asarray(grad))
        g_shape, p_shape = g._backend.shape_of(g._data), p._backend.shape_of(p._data)
        if g_shape != p_shape:
            raise ShapeError(f"{type(self).__name__}: gradient of shape {tuple(g_shape)} for a "
                             f"parameter of shape {tuple(p_shape)}")
        if not p._dtype.is_inexact:  # (a step cast to an integer dtype would be lost, or change it)
            raise DTypeError(f"{type(self).__name__}: a parameter of shape {tuple(p_shape)} has dtype "
                             f"{p._dtype.name}; optimizers update floating (or complex) parameters. Cast "
                             "it, e.g. p.astype(tp.float32), or give it no gradient (None).")
        if g._dtype is not p._dtype:
            g = g.astype(p._dtype)
        return self._update(p, g, slots, step)


def _clipped(items: Sequence[tuple[SlotKey, Tensor, Any]],
             hyperparameters: Mapping[str, Any]) -> Sequence[tuple[SlotKey, Tensor, Any]]:
    """`items` with their gradients clipped as the optimizer's ``clip_value`` (each element)
    and then ``clip_norm`` (the global norm of the step's gradients) say."""
    clip_value, clip_norm = hyperparameters.get("clip_value"), hyperparameters.get("clip_norm")
    if not items or (clip_value is None and clip_norm is None):
        return items
    grads = [g if isinstance(g, Tensor) else _asarray(g, backend=p._backend.name) for _, p, g in items]
    if recorders_var.get() and taping():  # an update is never differentiated
        grads = [stop_gradient(g) for g in grads]
    with on_backend(grads[0]):
        if clip_value is not None:
            grads = clip_by_value(grads, clip_value)
        if clip_norm is not None:
            grads, _ = clip_by_global_norm(grads, clip_norm)
    return [(key, p, g) for (key, p, _), g in zip(items, grads)]


def _zeros_like(t: Tensor) -> Tensor:
    """Zeros of `t`'s shape and dtype on its backend, made from host data (concrete even
    inside a tp.jit trace)."""
    return _asarray(np.zeros(t.shape, t._dtype.numpy), backend=t._backend.name)


def _asarray(x: Any, dtype: Any = None, backend: str | None = None) -> Tensor:
    return asarray(x, dtype=dtype, backend=backend)

