"""``tp.custom_jvp``: a function with its own forward-mode rule (JAX's ``jax.custom_jvp``).

Forward mode uses the rule instead of differentiating the function's ops; reverse mode
transposes the rule's tangent output (it must be linear in the tangents and written with ops),
so ``grad`` agrees with it too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.context import record_custom, state
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, AutodiffError
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.dispatcher import wrap
from tensorplug.transforms.autodiff.closures import refusing_closures
from tensorplug.transforms.autodiff.forward import hidden_from_forward_mode
from tensorplug.transforms.autodiff.transpose import transpose
from tensorplug.tree_util import (
    PyTreeDef,
    array_leaves,
    is_node,
    tree_flatten,
    tree_structure,
    tree_unflatten,
)

__all__ = ["custom_jvp", "CustomJvpFunction"]

# jvp_rule(primals, tangents) -> (primal_out, tangent_out)
JvpRule = Callable[[tuple[Tensor, ...], tuple[Tensor, ...]], tuple[Any, Any]]


def _tensors(value: Any, what: str, name: str) -> tuple[Tensor, ...]:
    multi = isinstance(value, (tuple, list))
    values = tuple(value) if multi else (value,)
    if not all(isinstance(v, Tensor) for v in values):
        raise AutodiffError(f"custom_jvp: {name} must return a Tensor or a tuple of Tensors as {what}, "
                            f"got {type(value).__name__}.")
    return values


class CustomJvpFunction:
    """`f` with a JVP rule set by ``@f.defjvp``; calling it runs f on tensors (positional)."""

    def __init__(self, f: Callable[..., Any]) -> None:
        self.f = f
        self.rule: JvpRule | None = None
        functools.update_wrapper(self, f)

    def defjvp(self, rule: JvpRule) -> JvpRule:
        """Set the rule: ``rule(primals, tangents) -> (primal_out, tangent_out)``, primals and
        tangents tuples with one entry per positional argument (pytrees alike), tangent_out like
        f's value; returns `rule` (use it as a decorator)."""
        valid.function(rule, "custom_jvp.defjvp")
        self.rule = rule
        return rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """f on `args` (keyword arguments are bound to f's parameters, as positional ones:
        the rule gets them all positionally, as JAX's does)."""
        name = getattr(self.f, "__name__", "custom_jvp")
        rule = self.rule
        if rule is None:
            raise AutodiffError(f"custom_jvp: {name} has no JVP rule; define one with @{name}.defjvp "
                                "before calling it.")
        if kwargs:
            args = _positional(self.f, name, args, kwargs)
        trees: PyTreeDef | None = None  # (the arguments' pytree, unless they are all tensors)
        if all(isinstance(a, Tensor) for a in args):
            inputs = tuple(args)
        else:
            leaves, trees = array_leaves(args, "arguments", "custom_jvp")
            inputs = tuple([a if isinstance(a, Tensor) else asarray(a) for a in leaves])
        primals = inputs if trees is None else tree_unflatten(trees, inputs)
        with refusing_closures(inputs, name, "custom_jvp"), hidden_from_forward_mode():
            value = self.f(*primals)  # (forward mode runs the rule instead)
        out_tree = None if _plain(value) or value is None or not is_node(value) else tree_structure(value)
        values = _tensors(value if out_tree is None else tree_flatten(value)[0], "its value", name)
        outs = tuple(wrap(v._data, v._backend, v._dtype) for v in values)
        if state.tapes:

            def tangent_out(tangents: tuple[Tensor, ...]) -> Any:
                result = rule(primals, tangents if trees is None else tree_unflatten(trees, tangents))
                if not (isinstance(result, (tuple, list)) and len(result) == 2):
                    raise AutodiffError(f"custom_jvp: the rule of {name} must return (primal_out, "
                                        f"tangent_out), got {type(result).__name__}.")
                given = result[1]
                if out_tree is not None:  # (its leaves, for the value's)
                    try:
                        given = tuple(out_tree.flatten_up_to(given))
                    except ValueError:
                        raise AutodiffError(f"custom_jvp: the rule of {name} returned tangent_out "
                                            f"{tree_structure(given)}, unlike its value {out_tree}; give "
                                            "tangent_out the value's structure.") from None
                found = _tensors(given, "tangent_out", f"the rule of {name}")
                _check_tangents(found, outs, name)
                return found if len(outs) > 1 else found[0]

            def gradient(dy: Any) -> list[Tensor | None]:  # the rule transposed in its tangents
                cts = dy if isinstance(dy, tuple) else (dy,)
                return transpose(lambda ts: _tensors(tangent_out(tuple(ts)), "tangent_out", name),
                                 inputs, cts)

            record_custom(name, inputs, outs, gradient, tangent_out)
        if out_tree is not None:
            return tree_unflatten(out_tree, outs)
        return outs if isinstance(value, (tuple, list)) else outs[0]


def _plain(value: Any) -> bool:
    """Whether `value` is a Tensor or a tuple or list of Tensors (no tree to keep)."""
    return isinstance(value, Tensor) or (isinstance(value, (tuple, list))
                                         and all(isinstance(v, Tensor) for v in value))


def _check_tangents(found: tuple[Tensor, ...], outs: tuple[Tensor, ...], name: str) -> None:
    """AutodiffError unless the rule gave one tangent per output, each of its output's shape."""
    if len(found) != len(outs):
        raise AutodiffError(f"custom_jvp: the rule of {name} returned {len(found)} tangent(s) for "
                            f"{len(outs)} output(s); return one tangent per output of {name}.")
    for i, (t, o) in enumerate(zip(found, outs)):
        if t.shape != o.shape:
            raise AutodiffError(f"custom_jvp: the rule of {name} returned a tangent of shape {t.shape} "
                                f"for output {i} of shape {o.shape}; a tangent has its output's shape.")


def _positional(f: Callable[..., Any], name: str, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """`args` and `kwargs` as f's positional arguments (ArgumentError if f cannot take them)."""
    try:
        bound = inspect.signature(f).bind(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"custom_jvp: {name} cannot take these arguments ({exc}).") from None
    if bound.kwargs:
        raise ArgumentError(f"custom_jvp: {name}'s keyword-only arguments {sorted(bound.kwargs)} "
                            "cannot be passed to its rule positionally; make them positional "
                            "parameters, or close over them.")
    return tuple(bound.args)


def custom_jvp(f: Callable[..., Any]) -> CustomJvpFunction:
    """Give `f` its own JVP rule (set with ``@f.defjvp``); forward and reverse mode both use it."""
    valid.function(f, "custom_jvp")
    return CustomJvpFunction(f)
