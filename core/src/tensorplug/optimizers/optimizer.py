"""The Optimizer base class: slot state per variable, ``minimize``, ``apply_gradients`` and a
functional ``update`` over pytrees.

A subclass gives the names of its slots and one pure update rule over tensors; the base class
keeps the slots (on each variable's backend), counts steps and cuts the updates off from any
recording tape (``tp.stop_gradient`` semantics: an optimizer step is never differentiated).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, overload

from .._state import backend_var, jit_trace_var, recorders_var, state
from ..autodiff import _tree
from ..autodiff.api import stop_gradient, variable_grads
from ..autodiff.tape import Tape
from ..backend import backend_scope
from ..errors import ShapeError, VariableNotFoundError
from ..ops.creation import zeros_like
from ..tensor import Tensor
from ..variable import Variable, _registry
from . import _jit_protocol as _protocol
from ._jit_protocol import STEP_ATTRS
from ._packed import unpacked

__all__ = ["Optimizer", "VariableNotFoundError", "LearningRate"]

LearningRate = float | Callable[[int], float]
Grads = Mapping[str, Any] | Iterable[tuple[Variable, Any]]


class Optimizer:
    """Base class of tensorplug's optimizers (as TF.js core ships them).

    A new optimizer sets ``slot_names`` (state kept per variable, zero-initialized) and writes
    ``_update(param, grad, slots, scalars)`` with ops, returning ``(new_param, new_slots)``;
    ``_constants()`` and ``_hyper(step)`` name the Python scalars the rule needs (fixed ones,
    and per-step ones such as the learning rate), which arrive in `scalars` as tensors of the
    parameter's dtype and backend. An optimizer that overrides ``_hyper`` also writes
    ``_traced_hyper(step, lr)`` with ops, so that tp.jit computes them inside the compiled step.

    Under tp.jit, a compiled call takes the optimizer's state as the previous call left it,
    without checking its configuration again, until an attribute of the optimizer is set
    (``__setattr__``): keep settings in attributes (public or private), not in mutable objects
    changed in place. The slots go in and out of a compiled step packed, one flat buffer per
    dtype (``_packed``), and are cut into tensors when something reads them.
    """

    slot_names: tuple[str, ...] = ()
    #: whether ``_traced_hyper`` matches ``_hyper`` (set per subclass)
    _device_hyper: bool = True

    def __init__(self, learning_rate: LearningRate) -> None:
        if not callable(learning_rate) and not float(learning_rate) > 0:
            raise ValueError(f"{type(self).__name__}: learning_rate must be > 0, got {learning_rate!r}")
        self.learning_rate = learning_rate
        self.iterations = 0  # steps taken (apply_gradients or update calls)
        # key -> (weak reference to the variable or None for pytree leaves, {slot name: Tensor})
        self._slot_table: dict[Hashable, tuple[Any, dict[str, Tensor]]] = {}
        # after a tp.jit call: (keys, refs, layout, natives, backend, iterations): the new slots
        # packed in one native buffer per dtype (see _packed), and the step count after them
        # when `iterations` is not None (the number of steps taken, as of that call); cut into
        # tensors only when something reads them (the next compiled call takes the buffers)
        self._jit_natives: tuple[Any, ...] | None = None
        self._tree_structure: Any = None
        # scalar tensors: constants per (dtype, backend, values); this step's per (dtype, backend)
        self._constant_cache: dict[Hashable, dict[str, Tensor]] = {}
        self._step_cache: dict[Hashable, dict[str, Any]] = {}  # scalar tensors, fused-kernel attrs
        self._step_hyper: dict[str, Any] = {}
        self._jit: _protocol.JitSteps | None = None  # while a tp.jit trace runs the optimizer
        # tp.jit: (learning rate, native, backend), uploaded when it changes
        self._jit_lr: tuple[float, Any, Any] | None = None
        # tp.jit, a call after a call: (backend, token, state, steps) for the next call (the
        # state ends with the learning rate's native), valid until an attribute outside
        # STEP_ATTRS is set (see __setattr__)
        self._jit_ready: tuple[Any, Any, list[Any], int] | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        # The learning rate, the step count, the configuration (a subclass's attributes): a
        # change makes the next compiled call check them again (_jit_state).
        object.__setattr__(self, name, value)
        if name not in STEP_ATTRS:
            object.__setattr__(self, "_jit_ready", None)

    @property
    def _slots(self) -> dict[Hashable, tuple[Any, dict[str, Tensor]]]:
        """key -> (weak reference to the variable or None for pytree leaves, {slot name: Tensor})."""
        pending = self._jit_natives
        if pending is not None:  # the last compiled call's slots, packed: cut them out now
            keys, refs, layout, natives, backend, _ = pending
            self._jit_natives = None
            it = iter(unpacked(natives[:len(layout[0])], layout, backend))
            names = self.slot_names
            for k, ref in zip(keys, refs):
                self._slot_table[k] = (ref, {n: next(it) for n in names})
        return self._slot_table

    @_slots.setter
    def _slots(self, table: dict[Hashable, tuple[Any, dict[str, Tensor]]]) -> None:
        self._jit_natives = None
        self._slot_table = table

    # -- the rule subclasses write -------------------------------------------------------------
    def _constants(self) -> dict[str, float]:
        """Fixed hyperparameters ``_update`` uses, by name (turned into scalar tensors of each
        parameter's dtype and backend once, not at every step)."""
        return {}

    def _hyper(self, step: int) -> dict[str, float]:
        """Per-step scalars for ``_update`` (step counts from 1)."""
        return {"lr": self.current_learning_rate(step)}

    def _traced_hyper(self, step: Tensor, lr: Tensor) -> dict[str, Tensor]:
        """``_hyper`` written with ops, for a compiled step (tp.jit): `step` and `lr` are
        float64 scalar tensors. A subclass that overrides ``_hyper`` overrides this too, or its
        compiled steps get their hyperparameters computed on the host at every call."""
        return {"lr": lr}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        mro = cls.__mro__
        owner = {name: next(i for i, c in enumerate(mro) if name in c.__dict__)
                 for name in ("_hyper", "_traced_hyper")}
        cls._device_hyper = owner["_traced_hyper"] <= owner["_hyper"]

    def _update(self, param: Tensor, grad: Tensor, slots: dict[str, Tensor],
                scalars: Mapping[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        """The new parameter and slots from the old ones and the gradient (all of the
        parameter's dtype, on its backend); `scalars` holds ``_constants()`` and
        ``_hyper(step)`` as scalar tensors of the same dtype and backend."""
        raise NotImplementedError

    def current_learning_rate(self, step: int | None = None) -> float:
        """The learning rate for `step` (default: the next step); schedules are called with it."""
        lr = self.learning_rate
        step = self.iterations + 1 if step is None else step
        return float(lr(step)) if callable(lr) else float(lr)

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
        else:
            self.apply_gradients([(v, grads[v.name]) for v in vs])
        return loss if return_loss else None

    def apply_gradients(self, grads: Grads) -> None:
        """One update of each variable from its gradient: `grads` is ``{variable name: grad}``
        (what ``tp.variable_grads`` returns) or a sequence of ``(variable, grad)`` pairs. A
        ``None`` gradient leaves its variable alone."""
        pairs = self._pairs(grads)
        self._next_step()
        table = self._slots
        for var, g in pairs:
            if g is None:
                continue
            name = var._name
            entry = table.get(name)
            # a variable of the same name created later gets fresh slots
            if entry is not None and entry[0]() is var:
                ref, slots = entry
            else:
                ref, slots = weakref.ref(var), self._slots_for(name, var, var)
            new, new_slots = self._step(var, g, slots)
            var.assign(new)
            table[name] = (ref, new_slots)

    # -- the functional (JAX-style) API --------------------------------------------------------
    def update(self, params: Any, grads: Any) -> Any:
        """New parameters from `params` and `grads`, two pytrees (nested lists, tuples, dicts) of
        the same structure, e.g. what ``tp.grad`` returns for them. The slots live in the
        optimizer, keyed by leaf position: use one optimizer per parameter tree."""
        leaves, structure = _tree.flatten(params, _is_leaf)
        g_leaves, g_structure = _tree.flatten(grads, _is_leaf)
        if g_structure != structure:
            raise ShapeError(f"{type(self).__name__}.update: params and grads have different "
                             "structures; pass grads as tp.grad returns them for params.")
        if self._tree_structure is None:
            self._tree_structure = structure
        elif structure != self._tree_structure:
            raise ShapeError(f"{type(self).__name__}.update: the parameter tree changed structure since "
                             "the first call; use a new optimizer for a new set of parameters.")
        self._next_step()
        out = []
        for i, (p, g) in enumerate(zip(leaves, g_leaves)):
            if g is None:
                out.append(p)
                continue
            p = p if isinstance(p, Tensor) else _asarray(p)
            key = ("leaf", i)
            new, new_slots = self._step(p, g, self._slots_for(key, p, None))
            self._slots[key] = (None, new_slots)
            out.append(new)
        return _tree.unflatten(structure, out)

    # -- inspection ----------------------------------------------------------------------------
    def get_slots(self, variable: Variable | str) -> dict[str, Tensor]:
        """The slot tensors kept for a variable (empty before its first update)."""
        name = variable if isinstance(variable, str) else variable.name
        entry = self._slots.get(name)
        return dict(entry[1]) if entry is not None else {}

    def get_config(self) -> dict[str, Any]:
        return {"learning_rate": self.learning_rate}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"

    # -- internals -----------------------------------------------------------------------------
    def _pairs(self, grads: Grads) -> list[tuple[Variable, Any]]:
        if isinstance(grads, Mapping):
            pairs = []
            for name, g in grads.items():
                var = _registry.get(name) if isinstance(name, str) else None
                if var is None:
                    raise VariableNotFoundError(
                        f"{type(self).__name__}.apply_gradients: a gradient is given for variable "
                        f"{name!r}, but no live Variable has that name. Pass the names "
                        "tp.variable_grads returns, or (variable, gradient) pairs."
                    )
                pairs.append((var, g))
            return pairs
        pairs = []
        for item in grads:
            if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], Variable)):
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients takes a dict {{variable name: gradient}} "
                    f"or (Variable, gradient) pairs; got an item of type {type(item).__name__}"
                )
            pairs.append((item[0], item[1]))
        return pairs

    def _slots_for(self, key: Hashable, like: Tensor, owner: Variable | None) -> dict[str, Tensor]:
        entry = self._slots.get(key)
        if entry is not None:
            ref, slots = entry
            # a variable of the same name created later gets fresh slots
            if owner is None or (ref is not None and ref() is owner):
                return slots
        with _on_backend(like):
            return {name: zeros_like(stop_gradient(like)) for name in self.slot_names}

    def _next_step(self) -> None:
        trace = jit_trace_var.get()
        if trace is not None:
            trace.touch(self)  # (before the state changes: a first touch takes a snapshot)
        self.iterations += 1
        self._step_cache = {}
        if trace is not None:  # tp.jit: this step's hyperparameters come in as traced values
            jit = self._jit
            assert jit is not None
            jit.steps += 1
            if jit.hyper is not None and jit.steps <= len(jit.hyper):
                self._step_hyper = jit.hyper[jit.steps - 1]
                return
        self._step_hyper = self._hyper(self.iterations)

    def _scalars(self, like: Tensor) -> dict[str, Tensor]:
        """Constants and this step's hyperparameters as scalar tensors like `like` (run on its
        backend)."""
        key = (like._dtype, like._backend)
        scalars = self._step_cache.get(key)
        if scalars is None:
            constants = self._constants()
            ckey = (like._dtype, like._backend, tuple(constants.items()))
            const_t = self._constant_cache.get(ckey)
            if const_t is None:
                const_t = self._constant_cache[ckey] = {
                    k: _asarray(v, like._dtype) for k, v in constants.items()}
            scalars = dict(const_t)
            scalars.update({k: _asarray(v, like._dtype) for k, v in self._step_hyper.items()})
            self._step_cache[key] = scalars
        return scalars

    def _step(self, param: Tensor, grad: Any, slots: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        if backend_var.get() is not param._backend:  # run on the parameter's backend
            with _on_backend(param):
                return self._step_here(param, grad, slots)
        return self._step_here(param, grad, slots)

    def _step_here(self, param: Tensor, grad: Any,
                   slots: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        if recorders_var.get() and _taping():  # cut the update off from the tape (slots are never watched)
            p, g = stop_gradient(param), stop_gradient(grad)
        else:
            p, g = param, (grad if isinstance(grad, Tensor) else _asarray(grad))
        g_shape, p_shape = g._backend.shape_of(g._data), p._backend.shape_of(p._data)
        if g_shape != p_shape:
            raise ShapeError(f"{type(self).__name__}: gradient of shape {tuple(g_shape)} for a "
                             f"parameter of shape {tuple(p_shape)}")
        if g._dtype is not p._dtype:
            g = g.astype(p._dtype)
        return self._update(p, g, slots, _LazyScalars(self, p))

    # -- tp.jit state protocol (see tensorplug.jit and ._jit_state) -----------------------------
    _jit_state = _protocol.state
    _compiled_config = _protocol.compiled_config
    _jit_bind = _protocol.bind
    _jit_unbind = _protocol.unbind
    _jit_commit = _protocol.commit


class _LazyScalars(Mapping[str, Tensor]):
    """The optimizer's scalars as tensors like `like`, made on first use (a fused update
    kernel needs none)."""

    __slots__ = ("_optimizer", "_like", "_scalars")

    def __init__(self, optimizer: Optimizer, like: Tensor) -> None:
        self._optimizer, self._like = optimizer, like
        self._scalars: dict[str, Tensor] | None = None

    def _get(self) -> dict[str, Tensor]:
        if self._scalars is None:
            self._scalars = self._optimizer._scalars(self._like)
        return self._scalars

    def __getitem__(self, key: str) -> Tensor:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


class _on_backend:
    """Run the block on the backend holding `t` (a no-op when it is the active one)."""

    __slots__ = ("_t", "_scope")

    def __init__(self, t: Tensor) -> None:
        self._t = t
        self._scope: Any = None

    def __enter__(self) -> None:
        if state.backend is not self._t._backend:
            self._scope = backend_scope(self._t.backend)
            self._scope.__enter__()

    def __exit__(self, *exc: Any) -> None:
        if self._scope is not None:
            self._scope.__exit__(*exc)


def _taping() -> bool:
    """Whether an autodiff tape is recording in this context (kernel counters do not count)."""
    return any(isinstance(r, Tape) for r in state.tapes)


def _is_leaf(x: Any) -> bool:
    return isinstance(x, Tensor) or not isinstance(x, (list, tuple, dict))


def _asarray(x: Any, dtype: Any = None) -> Tensor:
    from ..ops._convert import asarray
    return asarray(x, dtype)
