"""A module as a pytree node: which attributes are children (they hold state) and which are
static configuration, and ``ModuleDef``, the node's aux data, from which the module is rebuilt
around new children (``tp.tree_map`` over a model, ``tp.grad`` of one)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.tree_util import is_node

__all__ = ["ModuleDef", "holds_state", "split_attributes"]


def holds_state(value: Any) -> bool:
    """Whether an attribute's value is a child: a tensor, a numpy array, a node of tp.tree_util
    (a module, say), or a list, tuple or dict holding one."""
    if isinstance(value, (Tensor, np.ndarray)):
        return True
    if isinstance(value, (list, tuple, dict)):
        return any(holds_state(x) for x in (value.values() if isinstance(value, dict) else value))
    return value is not None and is_node(value)


def split_attributes(module: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A module's attributes as (children, static), each in assignment order."""
    children: dict[str, Any] = {}
    static: dict[str, Any] = {}
    for name, value in vars(module).items():
        (children if holds_state(value) else static)[name] = value
    return children, static


class ModuleDef:
    """A module's pytree aux data: its class, its attribute names in order, its static
    attributes. Equal for modules of one class and configuration (so tp.jit reuses a compiled
    call); the static values are compared with ``==`` (by identity when that fails)."""

    __slots__ = ("cls", "order", "static")

    def __init__(self, cls: type, order: tuple[str, ...], static: dict[str, Any]) -> None:
        self.cls, self.order, self.static = cls, order, static

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ModuleDef) and self.cls is other.cls and self.order == other.order
                and self.static.keys() == other.static.keys()
                and all(_same(v, other.static[k]) for k, v in self.static.items()))

    def __hash__(self) -> int:
        return hash((self.cls, self.order, tuple(_hash_of(v) for v in self.static.values())))

    def __repr__(self) -> str:
        return f"ModuleDef({self.cls.__name__}, {list(self.order)})"

    def rebuild(self, children: Iterable[Any]) -> Any:
        """A module of this class and configuration holding `children` (in ``order``'s order)."""
        module: Any = object.__new__(self.cls)
        values = iter(children)
        for name in self.order:
            module.__dict__[name] = self.static[name] if name in self.static else next(values)
        return module


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # (a value whose == is not a bool)
        return False


def _hash_of(value: Any) -> int:
    try:
        return hash(value)
    except TypeError:  # (a list, a dict: equal ones may hash alike, and do)
        return hash(type(value))
