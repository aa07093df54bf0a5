"""Registered pytree node classes (``tp.tree_util.register_pytree_node``) in a ``tp.save``
file: the JSON node of one (its class's qualified name, its aux data as JSON, its children)
and the object built again by ``tp.load``, which finds the class among those registered in the
process (it imports nothing)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug.errors import ArgumentError, CheckpointError
from tensorplug.tree_util import node_children, node_of, node_parts, registered_class, registered_name

__all__ = ["encode", "build", "restore", "children_of", "paired", "keyed_children", "with_children"]

Path = tuple[Any, ...]


def encode(obj: Any, path: Path, shown: str,
           child: Callable[[Any, Path], dict[str, Any]]) -> dict[str, Any] | None:
    """The JSON node of `obj` (at `path`, `shown` for messages) if its class was registered
    with tp.tree_util, its children written by `child`; None for any other object."""
    name = registered_name(type(obj))
    if name is None:
        return None
    children, aux, keys = node_parts(obj)
    try:
        aux_json = _to_json(aux)
    except TypeError:
        if keys is not None:  # (its aux data is code, not data, as a module's: its children by key)
            return {"kind": "dict", "items": [[k, child(c, (*path, k))] for k, c in zip(keys, children)]}
        raise ArgumentError(f"tp.save: the {type(obj).__name__} at {shown} has aux data {aux!r} "
                            "(the second value of its flatten function), which is not JSON data; keep "
                            "it to None, bool, int, float, str and tuples, lists and str-keyed dicts of "
                            "them, or save its tensors in a dict.") from None
    return {"kind": "node", "type": name, "aux": aux_json,
            "items": [child(c, (*path, i)) for i, c in enumerate(children)]}


def build(node: Mapping[str, Any], child: Callable[[Any], Any]) -> Any:
    """The object of a saved node, its children built by `child`."""
    cls = registered_class(node["type"])
    if cls is None:
        raise CheckpointError(f"tp.load: the file holds a {node['type']} (a pytree node class), which is "
                              "not registered in this process; import the module that registers it "
                              "(tp.tree_util.register_pytree_node) before loading.")
    return node_of(cls, _from_json(node["aux"]), [child(c) for c in node["items"]])


def restore(node: Mapping[str, Any], like: Any, path: Path, here: str, differences: list[str],
            child: Callable[[Any, Any, Path], Any]) -> Any:
    """A saved node restored into `like` (a node of the same class; its aux data is kept), its
    children by `child`; a difference recorded otherwise."""
    if registered_name(type(like)) != node["type"]:
        differences.append(f"{here}: the file has a {node['type']}, the tree given a {type(like).__name__}")
        return like
    children, aux = node_children(like)
    if len(children) != len(node["items"]):
        differences.append(f"{here}: the file has a {node['type']} of {len(node['items'])} children, the "
                           f"tree given one of {len(children)}")
        return like
    return node_of(type(like), aux, [child(n, c, (*path, i))
                                     for i, (n, c) in enumerate(zip(node["items"], children))])


def keyed_children(like: Any) -> dict[Any, Any] | None:
    """A registered node's children by key when its aux data is not JSON data and its flatten
    function names its children (a module): ``encode`` saved such a node as a dict of them."""
    if registered_name(type(like)) is None:
        return None
    children, aux, keys = node_parts(like)
    if keys is None:
        return None
    try:
        _to_json(aux)
    except TypeError:
        return dict(zip(keys, children))
    return None


def with_children(like: Any, children: Mapping[Any, Any]) -> Any:
    """A node of `like`'s class and aux data holding `children` (by key, as ``keyed_children``)."""
    _, aux, keys = node_parts(like)
    return node_of(type(like), aux, [children[k] for k in keys or ()])


def children_of(node: Mapping[str, Any]) -> list[Any]:
    """The saved children of a node (for walks over a saved tree)."""
    return list(node["items"])


def paired(node: Mapping[str, Any], like: Any) -> list[tuple[Any, Any]]:
    """(saved child, child of `like`) of a saved node and a given node of its class."""
    if registered_name(type(like)) != node["type"]:
        return []
    return list(zip(node["items"], node_children(like)[0]))


def _to_json(aux: Any) -> Any:
    if aux is None or isinstance(aux, (bool, int, float, str)):
        return aux
    if isinstance(aux, tuple):
        return {"tuple": [_to_json(a) for a in aux]}
    if isinstance(aux, list):
        return [_to_json(a) for a in aux]
    if isinstance(aux, dict) and all(isinstance(k, str) for k in aux):
        return {"dict": {k: _to_json(v) for k, v in aux.items()}}
    raise TypeError(type(aux).__name__)


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        if "tuple" in value:
            return tuple(_from_json(v) for v in value["tuple"])
        return {k: _from_json(v) for k, v in value["dict"].items()}
    return value
