"""vmap's trees of axes: `in_axes` and `out_axes` as trees (tuples, lists, dicts) of ints and
None, matched against the arguments and results they describe (pytrees, see ``tp.tree_util``;
the axes a prefix of their structure), and the arguments and results taken apart into leaves
and put together again."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.errors import ArgumentError
from tensorplug.tree_util import PyTreeDef, flatten_one_level, keystr, tree_flatten_with_path, tree_unflatten

__all__ = ["AxisSpec", "Leaf", "check_axes", "leaves_of", "rebuild"]

AxisSpec = Any  # an int or None, or a tree of them (tuple/list/dict) matching an argument
Leaf = tuple[Any, Any, str]  # (the value, its axis, where it is, for messages)


def check_axes(spec: AxisSpec, what: str) -> None:
    """Refuse an axis tree `what` (``in_axes``, ``out_axes``) that is not ints and None in
    tuples, lists and dicts."""
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            check_axes(s, what)
        return
    if isinstance(spec, dict):
        for s in spec.values():
            check_axes(s, what)
        return
    raise ArgumentError(f"vmap: {what} must be an int, None, or a tuple/list/dict of them matching the "
                        f"arguments; got {valid.shown(spec)}.")


def leaves_of(tree: Any, spec: AxisSpec, where: str, out: list[Leaf]) -> Any:
    """The leaves of `tree` (a pytree, see ``tp.tree_util``) appended to `out`, with the axis
    `spec` gives each (a prefix tree of it); returns the structure to rebuild it from them."""
    if not isinstance(spec, (tuple, list, dict)):  # one axis (or None) for every leaf below
        paths, leaves, treedef = tree_flatten_with_path(tree)
        out.extend((x, spec, f"{where}{keystr(path)}") for path, x in zip(paths, leaves))
        return treedef
    node = flatten_one_level(tree)
    if node is None:
        raise ArgumentError(f"vmap: the axes for {where} are a {type(spec).__name__}, the value is "
                            f"{valid.shown(tree)}; give an int or None for it.")
    children, keys, build = node
    specs: list[AxisSpec] = [spec] * len(children)  # (a tree of axes for each child)
    if isinstance(tree, dict) and isinstance(spec, dict):
        if set(spec) != set(tree):
            raise ArgumentError(f"vmap: the axes for {where} have keys {sorted(spec, key=str)}, the "
                                f"value has {sorted(tree, key=str)}; give one axis per key.")
        specs = [spec[k] for k in keys]
    elif not isinstance(tree, dict) and isinstance(spec, (tuple, list)):
        if len(spec) != len(children):
            raise ArgumentError(f"vmap: the axes for {where} have {len(spec)} entries, the value "
                                f"{len(children)}; give one axis per entry.")
        specs = list(spec)
    parts = [leaves_of(c, s, f"{where}[{k!r}]", out) for c, s, k in zip(children, specs, keys)]
    return (build, parts)


def rebuild(structure: Any, leaves: Any) -> Any:
    """The tree of `structure` (from ``leaves_of``) with the next values of the iterator
    `leaves` for its leaves."""
    if isinstance(structure, PyTreeDef):
        return tree_unflatten(structure, [next(leaves) for _ in range(structure.num_leaves)])
    build, parts = structure
    return build([rebuild(part, leaves) for part in parts])
