"""Minimal pytrees for autodiff arguments: nested lists, tuples and dicts of tensors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["flatten", "unflatten"]


def flatten(tree: Any, is_leaf: Callable[[Any], bool]) -> tuple[list[Any], Any]:
    """Leaves in a fixed order (dict keys sorted) and a structure to rebuild the tree."""
    leaves: list[Any] = []

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            keys = sorted(node)
            return ("dict", keys, [walk(node[k]) for k in keys])
        if isinstance(node, (list, tuple)) and not is_leaf(node):
            return (type(node), None, [walk(n) for n in node])
        leaves.append(node)
        return None

    return leaves, walk(tree)


def unflatten(structure: Any, leaves: list[Any]) -> Any:
    it = iter(leaves)

    def build(node: Any) -> Any:
        if node is None:
            return next(it)
        kind, keys, children = node
        built = [build(c) for c in children]
        if kind == "dict":
            return dict(zip(keys, built))
        return kind(built) if kind in (list, tuple) else kind(*built)

    return build(structure)
