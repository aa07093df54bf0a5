"""Variable: a mutable, named, optionally trainable tensor, for training state."""

from __future__ import annotations

import gc
import itertools
import weakref
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.core import validate as valid
from tensorplug.core.context import jit_trace_var
from tensorplug.core.context import jit_tracing as _tracing
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, RegistrationError, ShapeError, TracedValueError
from tensorplug.families._common.convert import asarray
from tensorplug.io.pickling import restore_tensor
from tensorplug.kernels.dispatcher import wrap

__all__ = ["Variable", "trainable_variables", "live_variables"]

_registry: weakref.WeakValueDictionary[str, Variable] = weakref.WeakValueDictionary()
_counter = itertools.count()


class Variable(Tensor):
    """A tensor whose value can be replaced with ``assign``; ops read its current value.

    ``name`` is unique among live variables (generated when omitted); trainable variables are
    what ``tp.variable_grads`` and optimizers differentiate by default.

    Inside a function being traced by ``tp.jit``, reading or assigning a Variable reports it
    to the trace, which passes its value in and its new value out of the compiled function
    (a Variable is a state holder whose state is one tensor, its value: see
    ``tensorplug.transforms.jit.state``); outside a trace that costs one context-variable read. Its
    backend is the one it was created on, for its whole life.
    """

    __slots__ = ("_name", "trainable", "_value", "_value_tensor")

    def __init__(self, initial_value: Any, name: str | None = None, trainable: bool = True,
                 dtype: Any = None) -> None:

        if jit_trace_var.get() is not None:
            raise TracedValueError(
                "cannot create a Variable inside a function compiled by tp.jit: it would be "
                "created once, when the function is traced, not at every call. Create it outside "
                "the function (and read or assign it inside)."
            )
        if name is not None and not isinstance(name, str):
            raise ArgumentError(f"Variable: name must be a str (or None), got {type(name).__name__}.")
        trainable = valid.flag(trainable, "Variable", "trainable")
        t = asarray(initial_value, dtype=dtype)
        self._value, self._dtype, self._backend = t._data, t._dtype, t._backend
        # the tensor of the value that jit_state last gave or set_jit_state took (one per value:
        # tp.jit sees a Variable not assigned since as the same state object)
        self._value_tensor: Tensor | None = None
        if name is None:
            name = f"Variable_{next(_counter)}"
            while name in _registry:
                name = f"Variable_{next(_counter)}"
        elif name in _registry:
            gc.collect()  # (one that only a reference cycle keeps is not live: collected first)
            if name in _registry:
                raise RegistrationError(f"a live Variable named '{name}' exists already; choose another "
                                        "name")
        self._name = name
        self.trainable = trainable
        _registry[name] = self

    # The native value, behind a property (shadowing Tensor's slot) so that a tp.jit trace
    # sees which Variables a function reads and writes.
    @property
    def _data(self) -> Any:
        if _tracing[0]:
            trace = jit_trace_var.get()
            if trace is not None:
                trace.touch(self)
        return self._value

    @_data.setter
    def _data(self, value: Any) -> None:
        if _tracing[0]:
            trace = jit_trace_var.get()
            if trace is not None:
                trace.touch(self)
        self._value = value

    @property
    def name(self) -> str:
        """The name (unique among live variables); it keys this variable in ``tp.variable_grads``' result."""
        return self._name

    def assign(self, value: Any) -> Variable:
        """Replace the value (same shape; converted to this variable's dtype and backend)."""
        trace = jit_trace_var.get()
        if trace is not None:  # tp.jit: the new value stays on the tracing backend until the
            trace.touch(self)  # call ends (then it is committed to this variable's backend)
            self._backend = trace.backend
        backend = self._backend
        if isinstance(value, Tensor) and value._backend is backend and value._dtype is self._dtype:
            new = value._data  # already this variable's dtype and backend: no conversion
        else:
            try:
                new = asarray(value, dtype=self._dtype, backend=backend.name)._data
            except TracedValueError as exc:
                if isinstance(value, Tensor) and value._backend.transform:  # (one value per example)
                    raise TracedValueError(
                        f"Variable '{self._name}': cannot assign a value that differs between the "
                        "examples of a tp.vmap batch: a Variable holds one value. Return the value "
                        "from the vmapped function and assign outside (e.g. its mean over the "
                        "batch axis).") from exc
                raise
        new_shape, shape = backend.shape_of(new), backend.shape_of(self._value)
        if new_shape != shape:
            raise ShapeError(f"cannot assign a value of shape {tuple(new_shape)} to Variable "
                             f"'{self._name}' of shape {tuple(shape)}")
        self._value = new  # (a trace was told above)
        return self

    def assign_add(self, delta: Any) -> Variable:
        """``assign(self + delta)``: add `delta` (broadcast to the shape) in place; returns self."""
        return self.assign(self + delta)

    def assign_sub(self, delta: Any) -> Variable:
        """``assign(self - delta)``: subtract `delta` (broadcast to the shape) in place; returns self."""
        return self.assign(self - delta)

    # -- copying and pickling (see tensorplug.io.pickling) -------------------------------------
    def __copy__(self) -> Variable:
        return copy_variable(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Variable:
        return self.__copy__()

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_variable(self)

    def __repr__(self) -> str:
        try:
            body = np.array2string(np.asarray(self.numpy()), separator=", ", prefix="Variable(")
        except TracedValueError:
            body = f"<traced, shape={self.shape}>"
        return f"Variable({body}, name={self._name!r}, dtype={self._dtype.name}, backend={self.backend!r})"

    # -- tp.jit's state-holder protocol (tensorplug.transforms.jit.state.StateHolder) -------------------
    def jit_state(self) -> Tensor:
        """tp.jit's view of this Variable: its state is its value, one tensor."""
        state = self._value_tensor
        if state is None or state._data is not self._value:  # (assigned since)
            state = self._value_tensor = wrap(self._value, self._backend, self._dtype)
        return state

    def set_jit_state(self, state: Tensor) -> None:
        """Take `state` as the value. Inside a tp.jit trace, as it is (a traced value stands for
        the value until the call ends); after a compiled call, moved to this Variable's own
        backend when the call ran on another."""
        if state._backend is not self._backend and jit_trace_var.get() is None:
            state = asarray(state, dtype=self._dtype, backend=self._backend.name)
        self._value, self._backend, self._value_tensor = state._data, state._backend, state


def name_taken(name: str) -> bool:
    """Whether a live Variable has `name`."""
    return name in _registry


def trainable_variables() -> list[Variable]:
    """Every live trainable Variable, in creation order."""
    return [v for v in list(_registry.values()) if v.trainable]


def live_variables() -> list[Variable]:
    """Every live Variable, trainable or not, in creation order."""
    return list(_registry.values())


# -- copying and pickling (see tensorplug.io.pickling) ----------------------------------------
def copy_variable(v: Variable) -> Variable:
    """``copy.copy`` and ``copy.deepcopy`` of a Variable: a new one, under a free name."""
    with backend_scope(v._backend.name):
        return Variable(v, name=_free_name(v._name), trainable=v.trainable)


def reduce_variable(v: Variable) -> tuple[Any, ...]:
    """``Variable.__reduce__``: restore_variable and its arguments."""
    return restore_variable, (v.numpy(), v._dtype.name, v._backend.name, v._name, v.trainable)


def restore_variable(values: np.ndarray, dtype: str, backend: str, name: str, trainable: bool) -> Variable:
    """A pickled Variable: under its name if that is free, else under a free name made from it."""
    with backend_scope(backend):
        return Variable(restore_tensor(values, dtype, backend), name=_free_name(name), trainable=trainable)


def _free_name(name: str) -> str:
    """`name` if no live Variable has it, else the first free one of ``name_1``, ``name_2``, ..."""
    if not name_taken(name):
        return name
    return next(n for n in (f"{name}_{k}" for k in itertools.count(1)) if not name_taken(n))
