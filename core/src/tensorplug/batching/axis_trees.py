"""vmap's trees of axes: `in_axes` and `out_axes` as trees (tuples, lists, dicts) of ints and
None, matched against the arguments and results they describe (a prefix of their structure),
and the arguments and results taken apart into leaves and put together again."""

from __future__ import annotations

from typing import Any

from .. import _validate as valid
from ..errors import ArgumentError

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
    """The leaves of `tree` appended to `out`, with the axis `spec` gives each (a prefix tree
    of it); returns the structure to rebuild it from them."""
    if isinstance(tree, dict):
        if isinstance(spec, dict):
            if set(spec) != set(tree):
                raise ArgumentError(f"vmap: the axes for {where} have keys {sorted(spec, key=str)}, the "
                                    f"value has {sorted(tree, key=str)}; give one axis per key.")
            return ("dict", list(tree), [leaves_of(tree[k], spec[k], f"{where}[{k!r}]", out) for k in tree])
        return ("dict", list(tree), [leaves_of(tree[k], spec, f"{where}[{k!r}]", out) for k in tree])
    if isinstance(tree, (tuple, list)):
        if isinstance(spec, (tuple, list)):
            if len(spec) != len(tree):
                raise ArgumentError(f"vmap: the axes for {where} have {len(spec)} entries, the value "
                                    f"{len(tree)}; give one axis per entry.")
            parts = [leaves_of(t, s, f"{where}[{i}]", out) for i, (t, s) in enumerate(zip(tree, spec))]
        else:
            parts = [leaves_of(t, spec, f"{where}[{i}]", out) for i, t in enumerate(tree)]
        return (type(tree), None, parts)
    if isinstance(spec, (tuple, list, dict)):
        raise ArgumentError(f"vmap: the axes for {where} are a {type(spec).__name__}, the value is "
                            f"{valid.shown(tree)}; give an int or None for it.")
    out.append((tree, spec, where))
    return None


def rebuild(structure: Any, leaves: Any) -> Any:
    """The tree of `structure` (from ``leaves_of``) with the next values of the iterator
    `leaves` for its leaves."""
    if structure is None:
        return next(leaves)
    kind, keys, children = structure
    built = [rebuild(c, leaves) for c in children]
    if kind == "dict":
        return dict(zip(keys, built))
    return kind(built) if kind in (list, tuple) else kind(*built)
