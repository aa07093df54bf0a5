"""tp.jit's state: the objects whose state a compiled function reads and writes (state
holders: Variables, optimizers), and how that state goes into a compiled call and comes out.

A holder's state is a pytree (``tp.tree_util``'s, where any dataclass is a node of its fields
too): tensors in dicts, lists, tuples, dataclasses and registered nodes; any other leaf is a
constant, compiled in as a constant argument is (it must be hashable; a new value compiles
again). At each call tp.jit reads every holder's state (``jit_state()``), passes its tensors in,
and gives the holder its new state after the call (``set_jit_state``), the same way for every
holder.

The tensors travel in buffers. A compiled call costs host time per array passed in or out
(~2 us on jax's CPU), so a holder's tensors of one dtype go as one flat buffer when there are
several and the backend can join them without moving data between devices
(``Backend.joinable``, asked of all the call's state of that dtype: state sharded over devices
keeps its tensors one array each, sharded as they are); a buffer whose tensors the call did not
change is not passed out, and the next call takes it again. After a call a holder whose state
is one tensor gets that tensor, any other a ``PackedState``: the buffers as the call left them,
which the next call takes as they are, and which the holder turns into its tree (``unpack``)
only when something reads it. Nothing here knows a backend or a kind of holder.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from itertools import chain
from math import prod
from typing import Any, NamedTuple, Protocol

import numpy as np

from tensorplug.backends.lifecycle import Backend, backend_scope
from tensorplug.core.context import jit_trace_var
from tensorplug.core.records import Record
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType
from tensorplug.errors import StateError
from tensorplug.families.manipulation.ops import concat, reshape
from tensorplug.kernels.dispatcher import wrap
from tensorplug.tree_util import PyTreeDef, flatten_state, tree_unflatten

__all__ = ["StateHolder", "PackedState", "StateLayout", "Buffer", "TensorLeaf", "Constant", "Tree",
           "Structure", "StateIn", "flatten", "tensor_leaves", "unflatten", "layout_of", "leaf_layout",
           "leaves_of", "pack", "carry_in", "written"]


class StateHolder(Protocol):
    """What tp.jit asks of an object whose state a compiled function may read and write.

    Inside a tp.jit trace the holder reports, before it reads or writes its state, to the trace
    in progress (``jit_trace_var.get().touch(holder)``, a no-op outside a trace); tp.jit then
    passes its state into the compiled function at every call and stores the new state after.
    A state is never changed in place (a new value is a new tree), so that tp.jit knows a state
    is still the one a call left by its identity alone.
    """

    def jit_state(self) -> Any:
        """The state as stored: a tree (see the module), or the PackedState a compiled call
        left; the same object as long as the state does not change."""

    def set_jit_state(self, state: Any) -> None:
        """Store `state` (a tree, or a PackedState) as the holder's state."""


# -- the structure of a state tree ---------------------------------------------------------------
class TensorLeaf(Record):
    """A tensor of a state tree: its shape and dtype."""

    __slots__ = ("shape", "dtype")
    shape: tuple[int, ...]
    dtype: DType

    def __init__(self, shape: tuple[int, ...], dtype: DType) -> None:
        self._set(shape=shape, dtype=dtype)


class Constant(Record):
    """A leaf that is not a tensor: compiled in (its type too: 1, 1.0 and True differ)."""

    __slots__ = ("kind", "value")
    kind: type
    value: Hashable

    def __init__(self, kind: type, value: Hashable) -> None:
        self._set(kind=kind, value=value)


class Tree(Record):
    """A state tree's structure (``tp.tree_util``'s, where any dataclass is a node of its
    fields too) and its leaves, in order."""

    __slots__ = ("treedef", "leaves")
    treedef: PyTreeDef
    leaves: tuple[TensorLeaf | Constant, ...]

    def __init__(self, treedef: PyTreeDef, leaves: tuple[TensorLeaf | Constant, ...]) -> None:
        self._set(treedef=treedef, leaves=leaves)


Structure = TensorLeaf | Tree


def flatten(tree: Any) -> tuple[Structure, list[Tensor]]:
    """The structure of `tree` and its tensors, in order (``tp.tree_util``'s)."""
    if isinstance(tree, Tensor):
        return TensorLeaf(tuple(tree._backend.shape_of(tree._data)), tree._dtype), [tree]
    leaves, treedef = flatten_state(tree)
    tensors: list[Tensor] = []
    described: list[TensorLeaf | Constant] = []
    for x in leaves:
        if isinstance(x, Tensor):
            tensors.append(x)
            described.append(TensorLeaf(tuple(x._backend.shape_of(x._data)), x._dtype))
            continue
        try:
            hash(x)
        except TypeError:
            raise StateError(
                f"tp.jit: a state holder's state holds a {type(x).__name__}, which is neither a "
                "tensor, a pytree (dict, list, tuple, dataclass, registered node) of them, nor a "
                "hashable constant. Keep tensors (not numpy arrays) and hashable settings (numbers, "
                "strings) in state."
            ) from None
        described.append(Constant(type(x), x))
    return Tree(treedef, tuple(described)), tensors


def tensor_leaves(structure: Structure) -> list[TensorLeaf]:
    """The tensor leaves of `structure`, in order."""
    if isinstance(structure, TensorLeaf):
        return [structure]
    return [leaf for leaf in structure.leaves if isinstance(leaf, TensorLeaf)]


def unflatten(structure: Structure, leaves: Iterator[Tensor]) -> Any:
    """The tree of `structure` around `leaves` (taken in order)."""
    if isinstance(structure, TensorLeaf):
        return next(leaves)
    return tree_unflatten(structure.treedef, [next(leaves) if isinstance(leaf, TensorLeaf) else leaf.value
                                              for leaf in structure.leaves])


# -- buffers ---------------------------------------------------------------------------------------
class Buffer(Record):
    """One array a holder's state passes into a compiled call: its tensor leaves (indices, in
    flattening order) of one dtype, flattened and joined when there are several."""

    __slots__ = ("dtype", "leaves")
    dtype: DType
    leaves: tuple[int, ...]

    def __init__(self, dtype: DType, leaves: tuple[int, ...]) -> None:
        self._set(dtype=dtype, leaves=leaves)

    @property
    def packed(self) -> bool:
        return len(self.leaves) > 1


class StateLayout(Record):
    """How one holder's state goes into a compiled call: its structure, its tensor leaves and
    the buffers they travel in. Hashable: the layouts of a call's holders key its compiled
    function."""

    __slots__ = ("structure", "leaves", "buffers")
    structure: Structure
    leaves: tuple[TensorLeaf, ...]
    buffers: tuple[Buffer, ...]

    def __init__(self, structure: Structure, leaves: tuple[TensorLeaf, ...],
                 buffers: tuple[Buffer, ...]) -> None:
        self._set(structure=structure, leaves=leaves, buffers=buffers)


def layout_of(structure: Structure, leaves: Sequence[TensorLeaf],
              packable: Callable[[DType], bool]) -> StateLayout:
    """The layout of a state: its leaves grouped by dtype (in order of first appearance), one
    buffer per dtype whose leaves may be packed (`packable`), else one buffer per leaf."""
    groups: dict[DType, list[int]] = {}
    for i, leaf in enumerate(leaves):
        groups.setdefault(leaf.dtype, []).append(i)
    buffers: list[Buffer] = []
    for dtype, indices in groups.items():
        if len(indices) > 1 and packable(dtype):
            buffers.append(Buffer(dtype, tuple(indices)))
        else:
            buffers.extend(Buffer(dtype, (i,)) for i in indices)
    return StateLayout(structure, tuple(leaves), tuple(buffers))


_LEAF_LAYOUTS: dict[tuple[tuple[int, ...], DType], StateLayout] = {}


def leaf_layout(shape: tuple[int, ...], dtype: DType) -> StateLayout:
    """The layout of a state that is one tensor (one object per shape and dtype, so that a
    call's layouts compare by identity)."""
    key = (shape, dtype)
    layout = _LEAF_LAYOUTS.get(key)
    if layout is None:
        if len(_LEAF_LAYOUTS) > 10_000:
            _LEAF_LAYOUTS.clear()
        leaf = TensorLeaf(shape, dtype)
        layout = _LEAF_LAYOUTS[key] = StateLayout(leaf, (leaf,), (Buffer(dtype, (0,)),))
    return layout


def cut(buffer: Tensor, spec: Buffer, layout: StateLayout) -> list[Tensor]:
    """The tensors of a packed buffer, cut out of it with ops (in a trace: traced ops)."""
    out = []
    start = 0
    for i in spec.leaves:
        shape = layout.leaves[i].shape
        stop = start + prod(shape)
        out.append(reshape(buffer[start:stop], shape))
        start = stop
    return out


def pack(tensors: Sequence[Tensor]) -> Tensor:
    """Tensors of one dtype flattened and joined (ops)."""
    return concat(list(tensors), axis=None)


def leaves_of(layout: StateLayout, buffers: Sequence[Tensor]) -> list[Tensor]:
    """A state's tensor leaves, in order, from its buffers (cut with ops where packed)."""
    leaves: dict[int, Tensor] = {}
    for buffer, spec in zip(buffers, layout.buffers):
        parts = cut(buffer, spec, layout) if spec.packed else [buffer]
        leaves.update(zip(spec.leaves, parts))
    return [leaves[i] for i in range(len(layout.leaves))]


class PackedState:
    """A holder's state as a compiled call left it: one native array of `backend` per buffer
    of `layout`. The next call takes the arrays as they are; ``unpack`` gives the tree."""

    __slots__ = ("layout", "natives", "backend")

    def __init__(self, layout: StateLayout, natives: list[Any], backend: Backend) -> None:
        self.layout = layout
        self.natives = natives
        self.backend = backend

    def unpack(self) -> Any:
        """The state tree, its tensors cut out of the buffers on the backend. During a tp.jit
        trace (which would stage the cutting) they are cut on the host and made again from
        host data, which a backend keeps concrete in a trace: the tree never holds traced
        values."""
        leaves = self._cut_on_backend() if jit_trace_var.get() is None else self._cut_on_host()
        return unflatten(self.layout.structure, iter(leaves))

    def _cut_on_backend(self) -> list[Tensor]:
        layout, backend = self.layout, self.backend
        buffers = [wrap(n, backend, spec.dtype) for n, spec in zip(self.natives, layout.buffers)]
        with backend_scope(backend.name):
            return leaves_of(layout, buffers)

    def _cut_on_host(self) -> list[Tensor]:
        layout, backend = self.layout, self.backend
        cut: dict[int, Tensor] = {}
        for native, spec in zip(self.natives, layout.buffers):
            host = np.asarray(backend.to_numpy(native))
            start = 0
            for i in spec.leaves:
                shape = layout.leaves[i].shape
                stop = start + prod(shape)
                part = host[start:stop].reshape(shape) if spec.packed else host
                cut[i] = wrap(backend.from_numpy(np.array(part)), backend, spec.dtype)
                start = stop
        return [cut[i] for i in range(len(layout.leaves))]

    def __repr__(self) -> str:
        return (f"PackedState({len(self.layout.leaves)} tensors in {len(self.natives)} arrays "
                f"of {self.backend!r})")


def written(layout: StateLayout, natives: list[Any], backend: Backend) -> Any:
    """What a holder is given after a compiled call: its one tensor, or a PackedState."""
    if isinstance(layout.structure, TensorLeaf):
        return wrap(natives[0], backend, layout.structure.dtype)
    return PackedState(layout, natives, backend)


class StateIn(NamedTuple):
    """The state a compiled call takes: each holder's layout, and the native arrays of all the
    buffers, holder after holder."""

    layouts: tuple[StateLayout, ...]
    natives: list[Any]


def carry_in(states: Sequence[Any], backend: Backend) -> StateIn:
    """The holders' states (``jit_state()`` of each) as a compiled call on `backend` takes
    them: a PackedState's arrays as they are, a single tensor's array, and any other tree
    flattened, its buffers packed here (eager ops on `backend`) where its layout packs them.
    Arrays of another backend go as numpy arrays."""
    layouts: list[Any] = []
    arrays: list[list[Any]] = []  # per holder, its buffers' arrays
    trees: dict[int, tuple[Structure, list[Tensor]]] = {}  # holder index -> its tree, flattened
    for i, state in enumerate(states):
        cls = state.__class__
        if cls is PackedState and state.backend is backend:
            layouts.append(state.layout)
            arrays.append(state.natives)
        elif isinstance(state, Tensor):
            layouts.append(leaf_layout(tuple(state._backend.shape_of(state._data)), state._dtype))
            arrays.append([_native(state, backend)])
        else:  # a tree: its layout asks whether its leaves can be joined, below
            trees[i] = flatten(state.unpack() if cls is PackedState else state)
            layouts.append(None)
            arrays.append([])
    if trees:  # (the first call, or a state set or read since the last one)
        _lay_out_trees(trees, layouts, arrays, backend)
    return StateIn(tuple(layouts), list(chain.from_iterable(arrays)))


def _lay_out_trees(trees: dict[int, tuple[Structure, list[Tensor]]], layouts: list[Any],
                   arrays: list[list[Any]], backend: Backend) -> None:
    """Layouts and buffers for the flattened `trees` (by holder index), in place. A dtype's
    leaves are packed where the backend can join all the call's state arrays of that dtype."""
    by_dtype: dict[DType, list[Any]] = {}
    for layout, holder_arrays in zip(layouts, arrays):
        if layout is not None:
            for array, spec in zip(holder_arrays, layout.buffers):
                by_dtype.setdefault(spec.dtype, []).append(array)
    for _, leaves in trees.values():
        for t in leaves:
            by_dtype.setdefault(t._dtype, []).append(_native(t, backend))
    packs = backend.packs_jit_state
    joinable = {dtype: packs and bool(backend.joinable(of_dtype)) for dtype, of_dtype in by_dtype.items()}
    for i, (structure, leaves) in trees.items():
        layout = layouts[i] = layout_of(structure, [_leaf_of(t) for t in leaves], joinable.__getitem__)
        for spec in layout.buffers:
            if spec.packed:
                with backend_scope(backend.name):
                    arrays[i].append(pack([leaves[j] for j in spec.leaves])._data)
            else:
                arrays[i].append(_native(leaves[spec.leaves[0]], backend))


def _leaf_of(t: Tensor) -> TensorLeaf:
    return TensorLeaf(tuple(t._backend.shape_of(t._data)), t._dtype)


def _native(t: Tensor, backend: Backend) -> Any:
    """`t`'s array as a compiled call on `backend` takes it (numpy when it lives elsewhere)."""
    if t._backend is backend:
        return t._data
    return np.asarray(t._backend.to_numpy(t._data))
