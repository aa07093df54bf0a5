"""Variable: a mutable, named, optionally trainable tensor, for training state."""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

from .errors import RegistrationError, ShapeError
from .tensor import Tensor

__all__ = ["Variable", "trainable_variables"]

_registry: weakref.WeakValueDictionary[str, Variable] = weakref.WeakValueDictionary()
_counter = itertools.count()


class Variable(Tensor):
    """A tensor whose value can be replaced with ``assign``; ops read its current value.

    ``name`` is unique among live variables (generated when omitted); trainable variables are
    what ``tp.variable_grads`` and optimizers differentiate by default.
    """

    __slots__ = ("_name", "trainable")

    def __init__(self, initial_value: Any, name: str | None = None, trainable: bool = True,
                 dtype: Any = None) -> None:
        from .ops._convert import asarray

        t = asarray(initial_value, dtype=dtype)
        self._data, self._dtype, self._backend = t._data, t._dtype, t._backend
        if name is None:
            name = f"Variable_{next(_counter)}"
            while name in _registry:
                name = f"Variable_{next(_counter)}"
        elif name in _registry:
            raise RegistrationError(f"a live Variable named '{name}' exists already; choose another name")
        self._name = name
        self.trainable = trainable
        _registry[name] = self

    @property
    def name(self) -> str:
        return self._name

    def assign(self, value: Any) -> Variable:
        """Replace the value (same shape; converted to this variable's dtype and backend)."""
        from .ops._convert import asarray

        t = asarray(value, dtype=self._dtype, backend=self._backend.name)
        if t.shape != self.shape:
            raise ShapeError(f"cannot assign a value of shape {t.shape} to Variable '{self._name}' of "
                             f"shape {self.shape}")
        self._data = t._data
        return self

    def assign_add(self, delta: Any) -> Variable:
        return self.assign(self + delta)

    def assign_sub(self, delta: Any) -> Variable:
        return self.assign(self - delta)

    def __repr__(self) -> str:
        body = np.array2string(np.asarray(self.numpy()), separator=", ", prefix="Variable(")
        return f"Variable({body}, name={self._name!r}, dtype={self._dtype.name}, backend={self.backend!r})"


def trainable_variables() -> list[Variable]:
    """Every live trainable Variable, in creation order."""
    return [v for v in list(_registry.values()) if v.trainable]
