"""tensorplug's one pytree (``tp.tree_util``, named as JAX's ``jax.tree_util``), over optree.

A pytree is nested tuples, lists, dicts (leaves in sorted key order; rebuilt in the dict's own
order), namedtuples, OrderedDicts, defaultdicts and deques, plus the node types registered with
``register_pytree_node`` or ``register_dataclass``; anything else is a leaf (a Tensor, a
Variable, a number). ``None`` is an empty subtree, as in JAX: it has no leaves and comes back as
``None``. Every transform (grad, jvp, vmap, jacfwd, checkpoint, ...), ``tp.jit``, the optimizers,
``tp.device_put`` and ``tp.save`` take trees through this module, so a node type registered here
is understood by all of them. Registrations live in optree's namespace ``"tensorplug"`` and do
not change how other optree users (JAX does not use optree) see the type.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np
import optree
from optree import PyTreeSpec as PyTreeDef

from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, RegistrationError

__all__ = ["register_pytree_node", "register_dataclass", "tree_flatten", "tree_unflatten",
           "tree_leaves", "tree_structure", "tree_map", "tree_flatten_with_path", "keystr"]

NAMESPACE = "tensorplug"
# tp.jit's state trees (``transforms.jit.state``): the nodes of NAMESPACE, and any dataclass as a node of
# its fields (a holder's state may hold dataclasses, such as OptimizerState, unregistered).
_STATE_NAMESPACE = "tensorplug.jit_state"
_state_dataclasses: set[type] = set()  # the dataclasses registered there only (by flatten_state)
_lock = threading.Lock()
_by_name: dict[str, type] = {}  # the classes registered here, by qualified name (tp.load finds them)

T = TypeVar("T")
Leaf = Callable[[Any], bool] | None  # an is_leaf predicate, or none


def register_pytree_node(cls: type[T], flatten_func: Callable[[T], tuple[Iterable[Any], Any]
                                                                 | tuple[Iterable[Any], Any, Iterable[Any]]],
                         unflatten_func: Callable[[Any, Iterable[Any]], T]) -> type[T]:
    """Make `cls` a node for every tensorplug transform: ``flatten_func(x)`` gives
    ``(children, aux_data)`` (aux_data hashable: tp.jit keys compiled calls by it), or
    ``(children, aux_data, keys)`` to name the children in paths, and
    ``unflatten_func(aux_data, children)`` builds the node again (JAX's signature). Returns `cls`.
    Registering a class twice, or a built-in node type, is a RegistrationError."""
    if not isinstance(cls, type) or not callable(flatten_func) or not callable(unflatten_func):
        raise ArgumentError(f"register_pytree_node: give a class and two functions (flatten, unflatten); "
                            f"got {type(cls).__name__}, {type(flatten_func).__name__} and "
                            f"{type(unflatten_func).__name__}.")
    try:
        optree.register_pytree_node(cls, flatten_func, unflatten_func,  # type: ignore[arg-type]
                                    namespace=NAMESPACE)
    except ValueError as exc:  # (registered already, or a built-in node type)
        raise RegistrationError(f"register_pytree_node: {exc} A class is registered once, for every "
                                "tensorplug transform; register it where it is defined.") from None
    _by_name[f"{cls.__module__}.{cls.__qualname__}"] = cls
    with _lock:
        if cls in _state_dataclasses:  # (a dataclass tp.jit's state met before: now as registered here)
            optree.unregister_pytree_node(cls, namespace=_STATE_NAMESPACE)
            _state_dataclasses.discard(cls)
        optree.register_pytree_node(cls, flatten_func, unflatten_func, namespace=_STATE_NAMESPACE)  # type: ignore[arg-type]
    return cls


def register_dataclass(cls: type[T]) -> type[T]:
    """Make dataclass `cls` a node whose children are its fields (usable as a decorator)."""
    if not (dataclasses.is_dataclass(cls) and isinstance(cls, type)):
        raise ArgumentError(f"register_dataclass: {cls!r} is not a dataclass; decorate it with "
                            "@dataclasses.dataclass first, or use register_pytree_node.")
    names = tuple(f.name for f in dataclasses.fields(cls))
    return register_pytree_node(cls, _fields_of(names), _built(cls))


def tree_flatten(tree: Any, is_leaf: Leaf = None) -> tuple[list[Any], PyTreeDef]:
    """The leaves of `tree` (in a fixed order) and its structure, to rebuild it with
    ``tree_unflatten``. `is_leaf` may stop the descent at a node (it then is a leaf)."""
    return optree.tree_flatten(tree, is_leaf, namespace=NAMESPACE)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """The tree of structure `treedef` holding `leaves` (one per leaf of `treedef`, in order)."""
    return optree.tree_unflatten(treedef, leaves)


def tree_leaves(tree: Any, is_leaf: Leaf = None) -> list[Any]:
    """The leaves of `tree`, in ``tree_flatten``'s order."""
    return optree.tree_leaves(tree, is_leaf, namespace=NAMESPACE)


def tree_structure(tree: Any, is_leaf: Leaf = None) -> PyTreeDef:
    """The structure of `tree` (hashable, comparable with ``==``)."""
    return optree.tree_structure(tree, is_leaf, namespace=NAMESPACE)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Leaf = None) -> Any:
    """`tree` with each leaf x replaced by ``f(x, *ys)``, ys the leaves at its place in the trees
    `rest` (each of `tree`'s structure, or with it as a prefix)."""
    try:
        return optree.tree_map(f, tree, *rest, is_leaf=is_leaf, namespace=NAMESPACE)
    except ValueError as exc:  # (optree's: the trees' structures differ)
        if not rest or "mismatch" not in str(exc).lower():
            raise
        raise ArgumentError(f"tree_map: the trees differ in structure ({exc}). Give trees of one structure: "
                            "modules of one class and configuration (their sizes, seeds and other "
                            "non-tensor attributes), dicts with the same keys.") from None


def tree_flatten_with_path(tree: Any,
                           is_leaf: Leaf = None) -> tuple[list[tuple[Any, ...]], list[Any], PyTreeDef]:
    """``tree_flatten`` with each leaf's path: the keys and indices from the root to it."""
    return optree.tree_flatten_with_path(tree, is_leaf, namespace=NAMESPACE)


def keystr(path: Iterable[Any]) -> str:
    """A leaf's path as a reader writes it: ``['params'][0]``."""
    return "".join(f"[{key!r}]" for key in path)


def is_node(x: Any) -> bool:
    """Whether `x` is a node of a tree (None, an empty one, too), not a leaf."""
    return not optree.tree_is_leaf(x, namespace=NAMESPACE)


def leaf_error(transform: str, where: str, tree: Any, leaf: Any) -> ArgumentError:
    """The error for `leaf` of `tree` (`where`: "argument 0"), which `transform` cannot take:
    its path, its type, and how to make its class a node."""
    paths, leaves, _ = tree_flatten_with_path(tree)
    path = next((p for p, x in zip(paths, leaves) if x is leaf), ())
    name = type(leaf).__name__
    return ArgumentError(
        f"{transform}: {where}{keystr(path)} is a {name}, which is neither a tensor nor a pytree node "
        f"tensorplug knows. Register the class once for every transform with "
        f"tp.tree_util.register_pytree_node({name}, flatten, unflatten) (or "
        f"tp.tree_util.register_dataclass({name}) for a dataclass), or pass its tensors in dicts, "
        "lists or tuples.")


_ARRAY_LEAVES = (Tensor, np.ndarray, np.generic, bool, int, float, complex)


def array_leaves(tree: Any, where: str, transform: str) -> tuple[list[Any], PyTreeDef]:
    """``tree_flatten(tree)`` for a transform that takes tensors: ArgumentError naming
    `transform` and the fix if a leaf is neither a tensor, an array nor a number (an instance
    of an unregistered class, say)."""
    leaves, treedef = optree.tree_flatten(tree, namespace=NAMESPACE)
    for x in leaves:
        if not isinstance(x, _ARRAY_LEAVES):
            raise leaf_error(transform, where, tree, x)
    return leaves, treedef


def registered_name(cls: type) -> str | None:
    """The qualified name of `cls` if it was registered here (not a built-in node), else None."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    return name if _by_name.get(name) is cls else None


def registered_class(name: str) -> type | None:
    """The class registered here under qualified `name`, if any."""
    return _by_name.get(name)


def node_children(node: Any) -> tuple[list[Any], Any]:
    """A registered node's children and aux data, as its flatten function gives them."""
    children, aux, _ = node_parts(node)
    return children, aux


def node_parts(node: Any) -> tuple[list[Any], Any, list[Any] | None]:
    """A registered node's children, aux data and the children's keys (None when its flatten
    function gives none)."""
    entry = optree.register_pytree_node.get(type(node), namespace=NAMESPACE)
    assert entry is not None, type(node)
    parts = entry.flatten_func(node)
    return list(parts[0]), parts[1], (list(parts[2]) if len(parts) > 2 and parts[2] is not None else None)


def node_of(cls: type, aux: Any, children: list[Any]) -> Any:
    """An instance of registered `cls` built by its unflatten function."""
    entry = optree.register_pytree_node.get(cls, namespace=NAMESPACE)
    assert entry is not None, cls
    return entry.unflatten_func(aux, children)


def flatten_one_level(node: Any) -> tuple[list[Any], list[Any], Callable[[list[Any]], Any]] | None:
    """A node's children, their keys (a dict's keys, else positions) and a function building the
    node again from new children; None for a leaf (and for None, an empty subtree)."""
    if optree.tree_is_leaf(node, none_is_leaf=True, namespace=NAMESPACE):
        return None
    children, metadata, entries, unflatten = optree.tree_flatten_one_level(node, namespace=NAMESPACE)
    keys = list(entries) if entries is not None else list(range(len(children)))
    return list(children), keys, lambda new: unflatten(metadata, new)


def flatten_state(tree: Any) -> tuple[list[Any], PyTreeDef]:
    """``tree_flatten`` for tp.jit's state trees, where any dataclass is also a node."""
    while True:
        leaves, treedef = optree.tree_flatten(tree, namespace=_STATE_NAMESPACE)
        fresh = {type(x) for x in leaves if dataclasses.is_dataclass(x) and not isinstance(x, type)}
        if not fresh:
            return leaves, treedef
        with _lock:
            for cls in fresh - _state_dataclasses:  # (in the state namespace only: elsewhere a leaf)
                names = tuple(f.name for f in dataclasses.fields(cls))
                optree.register_pytree_node(cls, _fields_of(names), _built(cls),  # type: ignore[arg-type]
                                            namespace=_STATE_NAMESPACE)
                _state_dataclasses.add(cls)


def _fields_of(names: tuple[str, ...]) -> Callable[[Any], tuple[list[Any], tuple[str, ...]]]:
    return lambda x: ([getattr(x, n) for n in names], names)


def _built(cls: type) -> Callable[[tuple[str, ...], Iterable[Any]], Any]:
    return lambda names, children: cls(**dict(zip(names, children)))
