"""Which gradient updates which parameter: ``(Variable, gradient)`` pairs from what
``apply_gradients`` takes, ``(leaf position, parameter, gradient)`` items from two pytrees (the
functional ``update``, the explicit ``apply``), and the parameter tree rebuilt with new leaves.
Errors name the optimizer's method (`where`, e.g. ``"Adam.update"``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable, _registry
from tensorplug.errors import ArgumentError, ShapeError, VariableNotFoundError
from tensorplug.families._common.convert import asarray
from tensorplug.tree_util import is_node, tree_flatten, tree_unflatten

__all__ = ["Grads", "variable_pairs", "leaf_items", "updated_tree"]

Grads = Mapping[str, Any] | Iterable[tuple[Variable, Any]]


def variable_pairs(grads: Grads, where: str) -> list[tuple[Variable, Any]]:
    """``(Variable, gradient)`` pairs from ``{variable name: gradient}`` (what
    ``tp.variable_grads`` returns) or from such pairs."""
    if isinstance(grads, Mapping):
        pairs = []
        for name, g in grads.items():
            var = _registry.get(name) if isinstance(name, str) else None
            if var is None:
                raise VariableNotFoundError(
                    f"{where}: a gradient is given for variable {name!r}, but no live Variable has "
                    "that name. Pass the names tp.variable_grads returns, or (variable, gradient) pairs."
                )
            pairs.append((var, g))
        return pairs
    pairs = []
    for item in grads:
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], Variable)):
            swapped = isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[1], Variable)
            raise ArgumentError(
                f"{where} takes a dict {{variable name: gradient}} or (Variable, gradient) pairs; got "
                f"an item of type {type(item).__name__}"
                + ("; it is (gradient, Variable), TF's order: swap the two" if swapped else "")
            )
        pairs.append((item[0], item[1]))
    return pairs


def leaf_items(params: Any, grads: Any, where: str) -> tuple[list[Any], Any, list[Any]]:
    """`params`' leaves and structure, and (leaf position, parameter, gradient) of the leaves
    with a gradient (None: not updated) that are not Variables made non-trainable (a model's
    state, such as batch norm's statistics, is left alone); ShapeError if the two trees differ."""
    leaves, structure = tree_flatten(params)
    try:
        g_leaves = structure.flatten_up_to(grads)
        if any(g is not None and is_node(g) for g in g_leaves):
            raise ValueError("a gradient is a tree where its parameter is a leaf")
    except ValueError:
        raise ShapeError(f"{where}: params and grads have different structures; pass grads as "
                         "tp.grad returns them for params.") from None
    items = [(i, p if isinstance(p, Tensor) else asarray(p), g)
             for i, (p, g) in enumerate(zip(leaves, g_leaves))
             if g is not None and not (isinstance(p, Variable) and not p.trainable)]
    return leaves, structure, items


def updated_tree(leaves: list[Any], structure: Any, items: Sequence[tuple[int, Tensor, Any]],
                 values: Sequence[Tensor]) -> Any:
    """The parameter tree with the leaves of `items` (leaf position, parameter, gradient)
    replaced by their new `values`."""
    out = list(leaves)
    for (i, _, _), value in zip(items, values):
        out[i] = value
    return tree_unflatten(structure, out)
