"""tp.jit's arguments and results as trees: the key of a call's arguments (structure, static
leaves, shapes and dtypes of the traced leaves), the arguments rebuilt around traced values,
and the results flattened into natives and back."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.dtypes import NUMPY_DTYPES, from_numpy_dtype
from tensorplug.errors import ArgumentError
from tensorplug.families._common.convert import _host_array, asarray
from tensorplug.kernels.dispatcher import wrap
from tensorplug.tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten

TRACED: Any = object()  # in a template of the arguments: a traced leaf
HOST_DTYPES = NUMPY_DTYPES  # numpy arrays passed to a backend as they are


def key_of(node: Any, dyn: list[Any]) -> Any:
    """A hashable description of an argument: structure, static leaves, shapes and dtypes of
    the traced leaves (collected into `dyn`)."""
    cls = node.__class__
    if cls is np.ndarray:  # the common cases first: a batch, a tensor
        dyn.append(node)
        return ("n", node.shape, node.dtype)
    if cls is Tensor:
        dyn.append(node)
        return (node._backend.shape_of(node._data), node._dtype)
    leaves, treedef = tree_flatten(node)
    parts = []
    for x in leaves:
        if x.__class__ is Tensor:  # (the common case, inline)
            dyn.append(x)
            parts.append((x._backend.shape_of(x._data), x._dtype))
        else:
            parts.append(_leaf_key(x, dyn))
    return (treedef, tuple(parts))


def _leaf_key(node: Any, dyn: list[Any]) -> Any:
    if isinstance(node, Tensor):
        if isinstance(node, Variable):
            return ("v", id(node))
        dyn.append(node)
        return (node._backend.shape_of(node._data), node._dtype)
    if isinstance(node, (np.ndarray, np.generic)):
        dyn.append(node)
        return ("n", node.shape, node.dtype)
    try:
        hash(node)
    except TypeError:
        raise ArgumentError(
            f"tp.jit: an argument leaf of type {type(node).__name__} is neither a tensor nor a "
            "hashable constant. Pass tensors (or numpy arrays) for traced values and hashable "
            "values (numbers, strings, tuples) for compile-time constants; register a class "
            "holding tensors with tp.tree_util.register_pytree_node."
        ) from None
    return constant_key(node)


def constant_key(value: Any) -> Any:
    """A compile-time constant's part of a cache key: its type and value, a float by its bits
    (``float.hex``; a complex number by its parts'): -0.0 equals 0.0 but is another constant
    (``1 / (x * s)``), and NaN equals nothing, which would compile again at every call."""
    cls = value.__class__
    if cls is float:
        return ("c", float, value.hex())
    if cls is complex:
        return ("c", complex, value.real.hex(), value.imag.hex())
    return ("c", type(value), value)


def static_key(value: Any) -> Any:
    """A hashable description of a static argument (``static_argnums``): as a constant's
    (``constant_key``), also of a tuple's items, so that equal values of different types (2 and
    2.0, 1 and True), which trace to different dtypes, do not share a compiled function."""
    if value.__class__ is tuple:
        return ("s", tuple, tuple(static_key(v) for v in value))
    return ("s", constant_key(value))


def _traced(x: Any) -> bool:
    """Whether an argument leaf is traced (a tensor but a Variable, a host array), or TRACED."""
    return x is TRACED or (isinstance(x, Tensor) and not isinstance(x, Variable)) or isinstance(
        x, (np.ndarray, np.generic))


def rebuild(node: Any, traced: Any) -> Any:
    """`node` with its traced leaves (or TRACED) replaced, in `key_of`'s order, by next(traced)."""
    if node is TRACED or node.__class__ is Tensor or node.__class__ is np.ndarray:
        return next(traced)
    leaves, treedef = tree_flatten(node)
    return tree_unflatten(treedef, [next(traced) if _traced(x) else x for x in leaves])


def variables_in(template: Any) -> list[Variable]:
    """The Variables among the leaves of `template` (arguments: passed as themselves)."""
    return [x for x in tree_leaves(template) if isinstance(x, Variable)]


def arrays_as_tensors(node: Any) -> Any:
    """`node` with its numpy arrays made tensors (as a compiled call sees them)."""
    return tree_map(lambda x: asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x, node)


def native(x: Any, backend: Backend) -> Any:
    """The value of a tensor (or host array) as the compiled function takes it: a native
    array of `backend`, or a numpy array of a tensorplug dtype."""
    if isinstance(x, Tensor):
        if x._backend is backend:
            return x._data
        return np.asarray(x._backend.to_numpy(x._data))
    arr = np.asarray(x)
    if arr.dtype not in HOST_DTYPES:
        arr = _host_array(arr, None)  # float16 and small integers widened, as tp.asarray does
        from_numpy_dtype(arr.dtype)  # refuses unsupported dtypes with tensorplug's message
    return arr


def flatten_out(node: Any, backend: Backend, natives: list[Any]) -> Any:
    """The results' description (``("t", dtype)`` for one tensor; ``("tensors", treedef,
    dtypes)`` for a tree of tensors; else ``("tree", treedef, kinds)``, per leaf ``("t", dtype)``
    or ``("c", value)``), their tensors' natives appended to `natives`."""
    if isinstance(node, Tensor):
        natives.append(_out_native(node, backend))
        return ("t", node._dtype)
    leaves, treedef = tree_flatten(node)
    kinds: list[Any] = []
    for x in leaves:
        if isinstance(x, (np.ndarray, np.generic)):
            x = asarray(x, backend=backend.name)
        if isinstance(x, Tensor):
            natives.append(_out_native(x, backend))
            kinds.append(("t", x._dtype))
        else:
            kinds.append(("c", x))
    if all(kind == "t" for kind, _ in kinds):
        return ("tensors", treedef, [dtype for _, dtype in kinds])
    return ("tree", treedef, kinds)


def _out_native(t: Tensor, backend: Backend) -> Any:
    if t._backend is backend:
        return t._data
    return backend.from_numpy(np.asarray(t._backend.to_numpy(t._data)))


def unflatten_out(tree: Any, natives: Any, backend: Backend) -> Any:
    """The results `flatten_out` described, their tensors wrapping the next `natives`."""
    kind = tree[0]
    if kind == "t":
        return wrap(next(natives), backend, tree[1])
    if kind == "tensors":
        return tree_unflatten(tree[1], [wrap(n, backend, d) for n, d in zip(natives, tree[2])])
    _, treedef, kinds = tree
    return tree_unflatten(treedef, [wrap(next(natives), backend, value) if kind == "t" else value
                                    for kind, value in kinds])


def nonnegative(statics: tuple[int, ...], nargs: int) -> tuple[int, ...]:
    """static_argnums with the negative ones counted from the end of this call's arguments."""
    return tuple(i % nargs if -nargs <= i < 0 else i for i in statics)
