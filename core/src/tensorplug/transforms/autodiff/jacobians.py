"""Jacobians and Hessians from the two modes: ``jacfwd`` (a JVP per input element), ``jacrev``
(a VJP per output element, over one recorded forward pass), all elements at once with
``tp.vmap``; ``hessian`` (jacfwd of jacrev) and ``hvp`` (forward over reverse)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.context import push_recorder, remove_recorder
from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.convert import asarray
from tensorplug.families.creation.ops import eye, zeros, zeros_like
from tensorplug.families.manipulation.ops import reshape
from tensorplug.transforms.autodiff.api import (
    _argnums,
    _checked_argnums,
    _diff_leaf,
    _with_aux,
    grad,
    regrouped,
    watched_arguments,
)
from tensorplug.transforms.autodiff.forward import jvp
from tensorplug.transforms.autodiff.tape import Tape, backward
from tensorplug.transforms.vmap.api import vmap
from tensorplug.tree_util import array_leaves, is_node, tree_flatten, tree_structure, tree_unflatten

__all__ = ["jacfwd", "jacrev", "hessian", "hvp"]


def _outputs(out: Any, fname: str) -> tuple[list[Tensor], Any]:
    """The output tree's leaves (floating Tensors, else AutodiffError) and its structure."""
    leaves, structure = tree_flatten(out)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise AutodiffError(f"{fname}: the function must return Tensors (in tuples, lists or dicts), "
                                f"got {type(leaf).__name__}")
        if not leaf._dtype.is_inexact:
            raise AutodiffError(f"{fname}: the function returned dtype {leaf.dtype.name}; a Jacobian "
                                "needs floating outputs.")
    return leaves, structure


def _basis(like: Tensor) -> Tensor:
    """The unit tensors of `like`'s shape and dtype, one per element in C order, stacked."""
    n = math.prod(like.shape)
    return reshape(eye(n, dtype=like.dtype), (n,) + like.shape)


def _result(parts: list[Any], argnums: int | tuple[int, ...]) -> Any:
    return parts[0] if isinstance(argnums, int) else tuple(parts)


def _output_of(f: Callable[..., Any], has_aux: bool) -> Callable[..., Any]:
    """`f`, or with ``has_aux`` the function giving the first of the pair `f` returns."""
    if not has_aux:
        return f
    return functools.wraps(f)(lambda *args, **kwargs: _with_aux(f(*args, **kwargs), f)[0])


def jacfwd(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """A function giving the Jacobian of `f` with respect to argument `argnums` by forward
    mode (a JVP per argument element, all at once under vmap). For a Tensor output and a
    Tensor argument: shape ``output.shape + argument.shape``; a tree of tensors as the argument
    gives a tree like it, a tuple of argnums a tuple, and a tree of outputs (tuples, lists,
    dicts) a tree like it of those, as JAX's jacfwd. Keyword arguments are passed to `f` as they
    are (not differentiated). With ``has_aux``, `f` returns ``(output, aux)`` and the result is
    ``(jacobian, aux)``, aux as `f` computes it (`f` runs once more, plainly, for it)."""
    valid.function(f, "jacfwd")
    argnums = _checked_argnums(argnums, "jacfwd")
    has_aux = valid.flag(has_aux, "jacfwd", "has_aux")
    main = _output_of(f, has_aux)

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        jac = jacobian(*args, **kwargs)
        if not has_aux:
            return jac
        return jac, _with_aux(f(*[a if is_node(a) else asarray(a) for a in args], **kwargs), f)[1]

    def jacobian(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args))
        args_l = [a if is_node(a) else asarray(a) for a in args]
        outputs: list[Any] = []  # (the output's structure and leaves, from the first call of f)
        per_argnum = []  # per argnum: per argument leaf, its block for each output leaf
        for n in nums:
            leaves, structure = array_leaves(args_l[n], f"argument {n}", "jacfwd")
            leaves = [_diff_leaf(x, f"argument {n}") for x in leaves]
            blocks_per_leaf = []
            for k, leaf in enumerate(leaves):

                def at(*xs: Any, n: int = n, structure: Any = structure) -> tuple[Tensor, ...]:
                    call = list(args_l)
                    call[n] = tree_unflatten(structure, list(xs))
                    out_leaves, out_structure = _outputs(main(*call, **kwargs), "jacfwd")
                    if not outputs:
                        outputs.extend((out_structure, out_leaves))
                    return tuple(out_leaves)

                def column(e: Tensor, k: int = k, at: Any = at, leaves: list[Tensor] = leaves) -> Any:
                    tangents = [e if j == k else zeros_like(x) for j, x in enumerate(leaves)]
                    return jvp(at, tuple(leaves), tuple(tangents))[1]
                if not math.prod(leaf.shape):  # an empty argument: empty Jacobians
                    empty = [zeros(o.shape + leaf.shape, dtype=leaf.dtype) for o in at(*leaves)]
                    blocks_per_leaf.append(empty)
                    continue
                columns = vmap(column, out_axes=-1)(_basis(leaf))  # each output.shape + (size,)
                blocks_per_leaf.append([reshape(c, c.shape[:-1] + leaf.shape) for c in columns])
            per_argnum.append((structure, blocks_per_leaf))
        if not outputs:  # every argument differentiated is an empty tree: f never ran
            out_leaves, out_structure = _outputs(main(*args_l, **kwargs), "jacfwd")
            outputs.extend((out_structure, out_leaves))
        out_structure, out_leaves = outputs
        return tree_unflatten(out_structure, [
            _result([tree_unflatten(structure, [blocks[j] for blocks in per_leaf])
                     for structure, per_leaf in per_argnum], argnums)
            for j in range(len(out_leaves))])

    return wrapper


def jacrev(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """A function giving the Jacobian of `f` with respect to argument `argnums` by reverse
    mode: one forward pass, a backward pass per output element (all at once under vmap).
    Shapes, trees and keyword arguments as for jacfwd. With ``has_aux``, `f` returns
    ``(output, aux)`` and the result is ``(jacobian, aux)``."""
    valid.function(f, "jacrev")
    argnums = _checked_argnums(argnums, "jacrev")
    has_aux = valid.flag(has_aux, "jacrev", "has_aux")

    @functools.wraps(f)
    def jacobian(*args: Any, **kwargs: Any) -> Any:
        args_l, groups, sources = watched_arguments(args, _argnums(argnums, len(args)), "jacrev")
        tape = Tape(sources)
        push_recorder(tape)
        try:
            result = f(*args_l, **kwargs)
        finally:
            remove_recorder(tape)
        out, aux = _with_aux(result, f) if has_aux else (result, None)
        out_leaves, out_structure = _outputs(out, "jacrev")
        per_output = []
        for out in out_leaves:
            if out.size:
                rows = vmap(lambda e, out=out: tuple(backward(tape, out, e, sources)))(_basis(out))
            else:  # an empty output: an empty Jacobian
                rows = tuple(zeros((0,) + s.shape, dtype=s.dtype) for s in sources)
            jac = [reshape(row, out.shape + s.shape) for row, s in zip(rows, sources)]
            per_output.append(_result(regrouped(groups, jac), argnums))
        jacobian_tree = tree_unflatten(out_structure, per_output)
        return (jacobian_tree, aux) if has_aux else jacobian_tree

    return jacobian


def hessian(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
            has_aux: bool = False) -> Callable[..., Any]:
    """A function giving the Hessian of scalar-valued `f` with respect to argument `argnums`
    (``jacfwd(jacrev(f))``): shape ``argument.shape + argument.shape``; for a tree argument,
    a tree of trees (``h["w"]["b"]``), for a tuple of argnums a tuple of tuples, as JAX's.
    Keyword arguments are passed to `f` as they are (not differentiated). With ``has_aux``,
    `f` returns ``(output, aux)`` and the result is ``(hessian, aux)``."""
    valid.function(f, "hessian")
    argnums = _checked_argnums(argnums, "hessian")
    has_aux = valid.flag(has_aux, "hessian", "has_aux")
    return jacfwd(jacrev(f, argnums, has_aux), argnums, has_aux)


def hvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, ...]:
    """The Hessian of scalar-valued `f` at `primals` times `tangents` (one per primal, trees
    alike), by forward mode over reverse mode: one tuple entry per primal, at the cost of a
    few gradients and no Hessian."""
    valid.function(f, "hvp")
    if not isinstance(primals, (tuple, list)) or not primals:
        raise AutodiffError(f"hvp: primals must be a non-empty tuple (one entry per argument of f), "
                            f"got {type(primals).__name__}.")
    if (not isinstance(tangents, (tuple, list))
            or tree_structure(list(tangents)) != tree_structure(list(primals))):
        raise AutodiffError(f"hvp: tangents must be a tuple like primals (one tangent per primal tensor, "
                            f"nested alike); got {type(tangents).__name__} for primals of "
                            f"{len(primals)} argument(s).")
    gradient = grad(f, argnums=tuple(range(len(primals))))
    return tuple(jvp(gradient, primals, tangents)[1])
