"""The functional autodiff API (JAX style): grad, value_and_grad, vjp, variable_grads,
custom_grad, stop_gradient."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import active_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import backend_var, push_recorder, record_custom, recorders_var, remove_recorder
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable, trainable_variables
from tensorplug.errors import AutodiffError, DTypeError
from tensorplug.families._common.convert import asarray, scalar_tensor
from tensorplug.kernels.dispatcher import wrap
from tensorplug.transforms.autodiff.closures import refusing_closures
from tensorplug.transforms.autodiff.tape import Tape, backward, backward_from, fresh
from tensorplug.tree_util import array_leaves, tree_flatten, tree_structure, tree_unflatten

__all__ = ["grad", "value_and_grad", "vjp", "variable_grads", "custom_grad", "stop_gradient"]


def _diff_leaf(x: Any, where: str) -> Tensor:
    t = asarray(x)
    if not t._dtype.is_inexact:
        raise DTypeError(
            f"cannot differentiate with respect to {where}: its dtype is {t._dtype.name}. Gradients "
            "are defined for real and complex floating inputs; pass floats (e.g. 3.0, or "
            ".astype(tp.float32))."
        )
    return fresh(t)


def _checked_argnums(argnums: Any, op: str) -> int | tuple[int, ...]:
    """`argnums` as an int or a tuple of ints (checked when the function is made)."""
    if isinstance(argnums, (list, tuple)):
        return tuple(valid.integer(n, op, "argnums") for n in argnums)
    return valid.integer(argnums, op, "argnums")


def _argnums(argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    """`argnums` as positions in a call with `nargs` positional arguments (AutodiffError if
    one is out of range, or if two name one argument: its gradient would be the later one's
    and the earlier would come out zero)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise AutodiffError(f"argnums {argnums!r} is out of range for a call with {nargs} "
                                "positional argument(s)")
    positions = tuple(n % nargs for n in nums)
    if len(set(positions)) < len(positions):
        raise AutodiffError(f"argnums {argnums!r} names an argument more than once (in a call with "
                            f"{nargs} positional argument(s)); give each argument once.")
    return positions


Groups = list[tuple[Any, int]]  # (tree structure, or None for a tensor; leaf count) per argument


def watched_arguments(args: Sequence[Any], nums: Sequence[int], fname: str,
                      what: str = "argument") -> tuple[list[Any], Groups, list[Tensor]]:
    """`args` with each tree at `nums` rebuilt of fresh tensors to differentiate by (see
    ``fresh``), those trees' structures and leaf counts, and the fresh leaves in order
    (errors name an argument as `what` and its position)."""
    args_l = list(args)
    structures: Groups = []
    sources: list[Tensor] = []
    for n in nums:
        if args_l[n].__class__ is Tensor:  # (the common case, without a tree)
            args_l[n] = leaf = _diff_leaf(args_l[n], f"{what} {n}")
            structures.append((None, 1))
            sources.append(leaf)
            continue
        leaves, structure = array_leaves(args_l[n], f"{what} {n}", fname)
        leaves = [_diff_leaf(x, f"{what} {n}") for x in leaves]
        args_l[n] = tree_unflatten(structure, leaves)
        structures.append((structure, len(leaves)))
        sources.extend(leaves)
    return args_l, structures, sources


def regrouped(structures: Sequence[tuple[Any, int]], leaves: Sequence[Any]) -> list[Any]:
    """`leaves` (one per fresh leaf of ``watched_arguments``) back in the arguments' trees."""
    trees, start = [], 0
    for structure, count in structures:
        tree = leaves[start] if structure is None else tree_unflatten(structure, leaves[start:start + count])
        trees.append(tree)
        start += count
    return trees


def _run(f: Callable[..., Any], tape: Tape, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    push_recorder(tape)
    try:
        return f(*args, **kwargs)
    finally:
        remove_recorder(tape)


def _scalar_output(out: Any, fname: str) -> Tensor:
    if not isinstance(out, Tensor):
        raise AutodiffError(f"{fname}: the function must return a Tensor, got {type(out).__name__}")
    if out.shape != ():
        raise AutodiffError(
            f"{fname}: the function returned shape {out.shape}; gradients need a scalar (shape ()) "
            "output. Reduce it (e.g. tp.sum or tp.mean), or use tp.vjp with an explicit upstream "
            "gradient. tensorplug never sums a non-scalar output silently."
        )
    if out._dtype.kind != "float":
        raise AutodiffError(f"{fname}: the function returned dtype {out._dtype.name}; gradients need "
                            "a real floating output (of a complex one take tp.real or tp.abs, as "
                            "in JAX).")
    return out


def _seed(out: Tensor) -> Tensor:
    """The upstream gradient of a scalar output: 1, of its dtype, on its backend."""
    if (backend_var.get() or active_backend()) is out._backend:
        return scalar_tensor(1, out._dtype)
    return wrap(out._backend.from_numpy(np.ones((), out._dtype.numpy)), out._backend, out._dtype)


def value_and_grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """A function returning ``(f(*args), gradient)``; the gradient has the structure of the
    argument at `argnums` (a tuple of them if `argnums` is a tuple; a pytree, see
    ``tp.tree_util``). With ``has_aux``, f returns ``(output, aux)`` and the result is
    ``((output, aux), gradient)``."""
    valid.function(f, "value_and_grad")
    return _value_and_grad(f, _checked_argnums(argnums, "value_and_grad"),
                           valid.flag(has_aux, "value_and_grad", "has_aux"), "value_and_grad")


def _value_and_grad(f: Callable[..., Any], argnums: int | tuple[int, ...], has_aux: bool,
                    fname: str) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        args_l, structures, sources = watched_arguments(args, _argnums(argnums, len(args)), fname)
        tape = Tape(sources)
        result = _run(f, tape, args_l, kwargs)
        out, aux = _with_aux(result, f) if has_aux else (result, None)
        out = _scalar_output(out, f"grad of {getattr(f, '__name__', 'f')}")
        grads = backward(tape, out, _seed(out), sources)
        trees = regrouped(structures, grads)
        g = trees[0] if isinstance(argnums, int) else tuple(trees)
        return ((out, aux), g) if has_aux else (out, g)

    return wrapper


def _with_aux(result: Any, f: Callable[..., Any]) -> tuple[Any, Any]:
    """(value, aux) of what `f` returned with ``has_aux=True``; AutodiffError if not a pair."""
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise AutodiffError(
            f"{getattr(f, '__name__', 'f')} was differentiated with has_aux=True, so it must return "
            f"a pair (value, aux); it returned {type(result).__name__}"
            f"{f' of length {len(result)}' if isinstance(result, (tuple, list)) else ''}. Return "
            "(value, aux), or drop has_aux."
        )
    return result[0], result[1]


def grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
         has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of scalar-valued `f` with respect to argument `argnums`."""
    valid.function(f, "grad")
    vg = _value_and_grad(f, _checked_argnums(argnums, "grad"), valid.flag(has_aux, "grad", "has_aux"), "grad")

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        (value, g) = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``(f(*primals), vjp_fn)``, as JAX's: the primals and `f`'s result are tensors or pytrees
    of them (``tp.tree_util``); ``vjp_fn(cotangent)``, the cotangent a tree of the result's
    structure with one tensor of each output's shape, gives one gradient per primal, each of
    its primal's structure (one backward pass for all the outputs)."""
    valid.function(f, "vjp")
    args, structures, sources = watched_arguments(primals, range(len(primals)), "vjp", "primal")
    tape = Tape(sources)
    out = _run(f, tape, args, {})
    if out.__class__ is Tensor:
        outs, out_tree = [out], None
    else:
        outs, out_tree = array_leaves(out, "the result", "vjp")
        if not all(isinstance(o, Tensor) for o in outs):
            raise AutodiffError(f"vjp: the function must return tensors (or a tree of them), got "
                                f"{type(out).__name__} holding "
                                f"{next(type(o).__name__ for o in outs if not isinstance(o, Tensor))}")

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        if out_tree is None:
            cts = [cotangent]
        else:
            try:
                cts = out_tree.flatten_up_to(cotangent)
            except ValueError:
                raise AutodiffError(f"vjp: the cotangent must have the structure of the function's "
                                    f"result, {out_tree}; got {tree_structure(cotangent)}") from None
        seeds = []
        for i, (o, c) in enumerate(zip(outs, cts)):
            ct = asarray(c, dtype=o.dtype)
            if ct.shape != o.shape:
                where = ("" if out_tree is None else
                         f" (leaf {i} of the result, as tp.tree_util.tree_leaves orders them)")
                raise AutodiffError(f"vjp: the cotangent{where} has shape {ct.shape}, the output {o.shape}")
            seeds.append(ct)
        return tuple(regrouped(structures, backward_from(outs, seeds, tape, sources)))

    return out, vjp_fn


def variable_grads(f: Callable[[], Any],
                   variables: Sequence[Variable] | None = None) -> tuple[Tensor, dict[str, Tensor]]:
    """``(f(), {variable name: gradient})`` over `variables` (default: every trainable
    Variable); like TF.js's variableGrads."""
    valid.function(f, "variable_grads")
    if variables is not None and not isinstance(variables, (list, tuple)):
        raise AutodiffError(f"variable_grads: variables must be a list of Variables, got "
                            f"{type(variables).__name__}.")
    vs = list(trainable_variables() if variables is None else variables)
    for v in vs:
        if not isinstance(v, Variable):
            raise AutodiffError(f"variable_grads takes Variables, got {type(v).__name__}")
    tape = Tape(vs)
    out = _scalar_output(_run(f, tape, (), {}), "variable_grads")
    grads = backward(tape, out, _seed(out), vs)
    return out, {v._name: g for v, g in zip(vs, grads)}


def stop_gradient(x: Any) -> Tensor:
    """x's values, cut off from differentiation."""
    t = asarray(x)
    return wrap(t._data, t._backend, t._dtype)


def custom_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """Give `f` its own gradient, bypassing the gradient registry.

    The decorated function takes tensors (or pytrees of them, ``tp.tree_util``) positionally
    and returns ``(value, grad_fn)``, value a tensor or a pytree of tensors; ``grad_fn(dy)``
    (dy like value) returns one gradient per positional input, each like its input (a tuple,
    or the gradient alone when there is one input; None for an input without gradient).
    ``grad_fn`` written with ops is itself differentiable, also where it uses values computed
    by the forward pass.
    """
    valid.function(f, "custom_grad")

    @functools.wraps(f)
    def wrapper(*args: Any) -> Any:
        if all(a.__class__ is Tensor for a in args):  # (the common case: no trees)
            inputs, trees = args, None
        else:
            leaves, trees = array_leaves(args, "arguments", "custom_grad")
            inputs = tuple([a if a.__class__ is Tensor else asarray(a) for a in leaves])
        # The forward pass is recorded as usual: its entries are off the path of a first-order
        # gradient (the value is re-wrapped below), but grad_fn may use its values (e.g. exp(x)
        # for exp), and a higher-order gradient must see that they depend on the inputs.
        # Forward mode sees it too (as JAX's jvp of grad sees a custom_vjp's fwd): the recorded
        # entry's tangent is grad_fn transposed, but grad_fn's ops on forward values need those
        # values' tangents when forward mode runs over the backward pass (tp.hvp).
        with refusing_closures(inputs, getattr(f, "__name__", "f"), "custom_grad"):
            result = f(*(inputs if trees is None else tree_unflatten(trees, inputs)))
        if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
            raise AutodiffError(
                f"custom_grad: {getattr(f, '__name__', 'f')} must return (value, grad_fn), got "
                f"{type(result).__name__}"
            )
        value, grad_fn = result
        multi = isinstance(value, (tuple, list))
        if isinstance(value, Tensor) or (multi and all(isinstance(v, Tensor) for v in value)):
            values, out_tree = (list(value) if multi else [value]), None  # (as always: a tuple or a Tensor)
        else:
            values, out_tree = tree_flatten(value)
        for v in values:
            if not isinstance(v, Tensor):
                raise AutodiffError(
                    f"custom_grad: {getattr(f, '__name__', 'f')} must return (value, grad_fn) with a "
                    f"Tensor (or a pytree of Tensors) as value, got {type(value).__name__}; wrap it "
                    "with tp.asarray(...).")
        outs = tuple([wrap(v._data, v._backend, v._dtype) for v in values])
        if recorders_var.get():
            gradient = grad_fn if trees is None and out_tree is None else _flat_gradient(
                grad_fn, args, out_tree, getattr(f, "__name__", "f"))
            record_custom(getattr(f, "__name__", "custom_grad"), inputs, outs, gradient)
        if out_tree is not None:
            return tree_unflatten(out_tree, outs)
        return outs if multi else outs[0]

    return wrapper


def _flat_gradient(grad_fn: Callable[[Any], Any], args: Sequence[Any], out_tree: Any,
                   name: str) -> Callable[[Any], list[Any]]:
    """`grad_fn` of a custom_grad over trees as the tape calls it: the upstream gradients of the
    value's leaves (one, or a tuple) in, one gradient per argument leaf out."""
    arg_trees = [tree_structure(a) for a in args]

    def gradient(dy: Any) -> list[Any]:
        if out_tree is not None:  # (the value's leaves' upstream gradients, in the value's tree)
            dy = tree_unflatten(out_tree, dy if isinstance(dy, tuple) else (dy,))
        given = grad_fn(dy)
        per_arg = given
        if len(args) == 1 and not (isinstance(given, tuple) and len(given) == 1
                                   and tree_structure(given) != arg_trees[0]):
            per_arg = (given,)  # (the gradient alone, not in a tuple of one)
        if not isinstance(per_arg, (tuple, list)) or len(per_arg) != len(args):
            raise AutodiffError(f"custom_grad: the grad_fn of {name} returned {type(given).__name__}; "
                                f"return one gradient per positional input ({len(args)}, in a tuple).")
        flat: list[Any] = []
        for i, (g, tree) in enumerate(zip(per_arg, arg_trees)):
            try:
                flat.extend([None] * tree.num_leaves if g is None else tree.flatten_up_to(g))
            except ValueError:
                raise AutodiffError(f"custom_grad: the grad_fn of {name} returned a gradient for input "
                                    f"{i} unlike the input ({tree_structure(g)}, not {tree}); give it "
                                    "the input's structure (None for no gradient).") from None
        return flat

    return gradient
