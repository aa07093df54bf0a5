"""tp.jit's arguments and results as trees: the key of a call's arguments (structure, static
leaves, shapes and dtypes of the traced leaves), the arguments rebuilt around traced values,
and the results flattened into natives and back."""

from __future__ import annotations

from typing import Any

import numpy as np

from .backend import Backend
from .dtypes import ALL_DTYPES, from_numpy_dtype
from .engine import wrap
from .errors import ArgumentError
from .tensor import Tensor
from .variable import Variable

TRACED: Any = object()  # in a template of the arguments: a traced leaf
HOST_DTYPES = frozenset(d.numpy for d in ALL_DTYPES)  # numpy arrays passed to a backend as they are


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
    if isinstance(node, Tensor):
        if isinstance(node, Variable):
            return ("v", id(node))
        dyn.append(node)
        return (node._backend.shape_of(node._data), node._dtype)
    if isinstance(node, (np.ndarray, np.generic)):
        dyn.append(node)
        return ("n", node.shape, node.dtype)
    if isinstance(node, (list, tuple)):
        kind = type(node) if type(node) not in (list, tuple) else (node.__class__ is list)
        return (kind, tuple(key_of(n, dyn) for n in node))
    if isinstance(node, dict):
        return ("d", tuple(node), tuple(key_of(v, dyn) for v in node.values()))
    try:
        hash(node)
    except TypeError:
        raise ArgumentError(
            f"tp.jit: an argument leaf of type {type(node).__name__} is neither a tensor nor a "
            "hashable constant. Pass tensors (or numpy arrays) for traced values and hashable "
            "values (numbers, strings, tuples) for compile-time constants."
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


def rebuild(node: Any, traced: Any) -> Any:
    """`node` with its traced leaves (or TRACED) replaced, in `key_of`'s order, by next(traced)."""
    if node is TRACED:
        return next(traced)
    if isinstance(node, Tensor):
        return node if isinstance(node, Variable) else next(traced)
    if isinstance(node, (np.ndarray, np.generic)):
        return next(traced)
    if isinstance(node, (list, tuple)):
        items = [rebuild(n, traced) for n in node]
        if type(node) in (list, tuple):
            return type(node)(items)
        return type(node)(*items)  # a namedtuple
    if isinstance(node, dict):
        return {k: rebuild(v, traced) for k, v in node.items()}
    return node


def arrays_as_tensors(node: Any) -> Any:
    if isinstance(node, (np.ndarray, np.generic)):
        from .ops._convert import asarray
        return asarray(node)
    if isinstance(node, (list, tuple, dict)):
        leaves: list[Any] = []
        key_of(node, leaves)
        if any(isinstance(x, (np.ndarray, np.generic)) for x in leaves):
            from .ops._convert import asarray
            return rebuild(node, iter([x if isinstance(x, Tensor) else asarray(x) for x in leaves]))
    return node


def native(x: Any, backend: Backend) -> Any:
    """The value of a tensor (or host array) as the compiled function takes it: a native
    array of `backend`, or a numpy array of a tensorplug dtype."""
    if isinstance(x, Tensor):
        if x._backend is backend:
            return x._data
        return np.asarray(x._backend.to_numpy(x._data))
    arr = np.asarray(x)
    if arr.dtype not in HOST_DTYPES:
        from .ops._convert import _host_array
        arr = _host_array(arr, None)  # float16 and small integers widened, as tp.asarray does
        from_numpy_dtype(arr.dtype)  # refuses unsupported dtypes with tensorplug's message
    return arr


def flatten_out(node: Any, backend: Backend, natives: list[Any]) -> Any:
    if isinstance(node, Tensor):
        natives.append(node._data if node._backend is backend else backend.from_numpy(
            np.asarray(node._backend.to_numpy(node._data))))
        return ("t", node._dtype)
    if isinstance(node, (list, tuple)):
        kind = type(node) if type(node) not in (list, tuple) else (node.__class__ is list)
        return (kind, [flatten_out(n, backend, natives) for n in node])
    if isinstance(node, dict):
        return ("d", list(node), [flatten_out(v, backend, natives) for v in node.values()])
    if isinstance(node, (np.ndarray, np.generic)):
        from .ops._convert import asarray
        return flatten_out(asarray(node, backend=backend.name), backend, natives)
    return ("c", node)


def unflatten_out(tree: Any, natives: Any, backend: Backend) -> Any:
    kind = tree[0]
    if kind == "t":
        return wrap(next(natives), backend, tree[1])
    if kind == "c":
        return tree[1]
    if kind == "d":
        return {k: unflatten_out(t, natives, backend) for k, t in zip(tree[1], tree[2])}
    items = [unflatten_out(t, natives, backend) for t in tree[1]]
    if kind is True:
        return items
    if kind is False:
        return tuple(items)
    return kind(*items)


def nonnegative(statics: tuple[int, ...], nargs: int) -> tuple[int, ...]:
    """static_argnums with the negative ones counted from the end of this call's arguments."""
    return tuple(i % nargs if -nargs <= i < 0 else i for i in statics)
