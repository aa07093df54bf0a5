"""``tp.data``: batches of arrays and pytrees of arrays, shuffled with a seed, for training loops.

A small, tf.data-like pipeline. ``Dataset(tree)`` (or ``Dataset.from_tensor_slices(tree)``) holds
the leaves of a tree (dicts, tuples, lists, ... of ``tp.tree_util``) as numpy arrays, converted
once; its examples are the slices of every leaf along axis 0. ``shuffle``, ``batch``, ``map``,
``take`` and ``repeat`` each return a new Dataset; iterating one gives a fresh pass of elements
(examples, or batches after ``batch``), each the same tree of **numpy arrays** (``tp.jit``
steps take numpy directly; ``tp.asarray`` converts).

Before any ``map``, a shuffled, batched pass costs one fancy index per leaf per batch (no loop
over examples in Python). Functions given to ``map`` see one element at their point of the
pipeline (an example before ``batch``, a batch after it); they are applied lazily, to the
elements a pass yields, so ``take`` after ``map`` calls the function only on the elements taken.
They must not depend on the order of the calls (a map before ``shuffle`` is applied after it).

    ds = tp.data.Dataset((x, y)).shuffle(seed=0).batch(32)
    for xb, yb in ds: ...                       # a pass: numpy batches, reshuffled each pass
    tp.data.batches((x, y), 32, shuffle_seed=0)  # the same, in one call
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.core.validate import flag, function, integer, shown
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.tree_util import (
    PyTreeDef,
    is_node,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)

__all__ = ["Dataset", "batches", "as_batches", "DEFAULT_BATCH_SIZE"]

#: the batch size `as_batches` uses for arrays when none is given (Keras's default)
DEFAULT_BATCH_SIZE = 32

#: a pass of keys: the pass number -> runs (numpy arrays) of element keys. An example's key is
#: its row in the leaves (int64 runs); a batch's is the array of its examples' rows (object runs).
_Keys = Callable[[int], Iterator[np.ndarray]]


class Dataset:
    """A pipeline of examples (the axis-0 slices of every leaf of `tree`) or, after ``batch``,
    of batches; each element is a tree of numpy arrays of `tree`'s structure. Iterating gives a
    fresh pass (its number counts the passes of this object, from 0: see ``shuffle``)."""

    def __init__(self, tree: Any) -> None:
        self._start(tree, "tp.data.Dataset")

    def _start(self, tree: Any, where: str) -> None:
        self._leaves, self._treedef = _source(tree, where)
        rows = len(self._leaves[0])
        self._keys: _Keys = lambda _pass: iter((np.arange(rows),))
        self._size: int | None = rows  # elements per pass; None: endless
        self._batch_size: int | None = None  # None: the elements are examples
        self._example_maps: tuple[Callable[[Any], Any], ...] = ()
        self._batch_maps: tuple[Callable[[Any], Any], ...] = ()
        self._passes = 0

    @classmethod
    def from_tensor_slices(cls, tree: Any) -> Dataset:
        """The dataset of the slices along axis 0 of every leaf of `tree` (as ``Dataset(tree)``);
        all leaves must have the same length."""
        dataset = cls.__new__(cls)
        dataset._start(tree, "tp.data.Dataset.from_tensor_slices")
        return dataset

    # -- the pipeline ------------------------------------------------------------------------
    def shuffle(self, seed: int, reshuffle_each_iteration: bool = True) -> Dataset:
        """The elements in a random order: pass k is the permutation drawn by
        ``np.random.default_rng((seed, k))`` (always pass 0's without `reshuffle_each_iteration`),
        so every pass is reproducible. A whole pass is permuted (no buffer size to choose)."""
        seed = integer(seed, "tp.data.Dataset.shuffle", "seed", minimum=0)
        again = flag(reshuffle_each_iteration, "tp.data.Dataset.shuffle", "reshuffle_each_iteration")
        if self._size is None:
            raise ArgumentError("tp.data.Dataset.shuffle: this dataset repeats endlessly (repeat() without a "
                                "count), and a pass must end to be shuffled; shuffle before repeat().")
        inner = self._keys

        def keys(pass_number: int) -> Iterator[np.ndarray]:
            runs = list(inner(pass_number))
            run = np.concatenate(runs) if runs else np.arange(0)
            rng = np.random.default_rng((seed, pass_number if again else 0))
            yield run[rng.permutation(len(run))]
        return self._derived(keys, self._size)

    def batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset:
        """The examples stacked `batch_size` at a time (each leaf gains axis 0 of that size); the
        last, smaller batch is dropped with `drop_remainder`. A dataset is batched once."""
        where = "tp.data.Dataset.batch"
        batch_size = integer(batch_size, where, "batch_size", minimum=1)
        drop_remainder = flag(drop_remainder, where, "drop_remainder")
        if self._batch_size is not None:
            raise ArgumentError(f"{where}: this dataset is batched already (batch_size={self._batch_size}); "
                                "batch once, with the size you need.")
        size = self._size
        if size is not None:
            size = size // batch_size if drop_remainder else -(-size // batch_size)
            if size == 0:
                raise ShapeError(
                    f"{where}: batch_size={batch_size} with drop_remainder={drop_remainder} leaves no "
                    f"batch of the {self._size} examples of a pass; "
                    + ("give a non-empty dataset." if self._size == 0 else
                       f"use a batch_size <= {self._size} or drop_remainder=False."))
        batched = self._derived(_chunked(self._keys, batch_size, drop_remainder), size)
        batched._batch_size = batch_size
        return batched

    def map(self, fn: Callable[[Any], Any]) -> Dataset:
        """Each element replaced by ``fn(element)``: a tree of numpy arrays in, a tree of arrays or
        Tensors out (converted to numpy). Before ``batch`` fn sees one example (and every example
        it returns must have the same structure and shapes, to be stacked), after it one batch."""
        fn = function(fn, "tp.data.Dataset.map", "fn")
        mapped = self._derived(self._keys, self._size)
        if self._batch_size is None:
            mapped._example_maps = (*self._example_maps, fn)
        else:
            mapped._batch_maps = (*self._batch_maps, fn)
        return mapped

    def take(self, count: int) -> Dataset:
        """The first `count` elements of each pass (all of them if the pass is shorter)."""
        count = integer(count, "tp.data.Dataset.take", "count", minimum=0)
        inner = self._keys

        def keys(pass_number: int) -> Iterator[np.ndarray]:
            left = count
            for run in inner(pass_number) if left else ():
                yield run[:left]
                left -= len(run)
                if left <= 0:
                    return
        return self._derived(keys, count if self._size is None else min(count, self._size))

    def repeat(self, count: int | None = None) -> Dataset:
        """`count` passes of this dataset as one (endless with None): pass k of the result is
        passes k*count, ..., k*count + count-1 of this one (0, 1, 2, ... of it when endless)."""
        if count is not None:
            count = integer(count, "tp.data.Dataset.repeat", "count", minimum=0)
        inner, times = self._keys, count

        def keys(pass_number: int) -> Iterator[np.ndarray]:
            for r in (range(times) if times is not None else itertools.count()):
                yield from inner(pass_number * times + r if times is not None else r)
        if self._size == 0:  # (nothing to repeat, endlessly or not)
            return self._derived(lambda _pass: iter(()), 0)
        return self._derived(keys, None if count is None or self._size is None else self._size * count)

    # -- passes ------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Any]:
        """A fresh pass: the next pass number of this object (0 first)."""
        self._passes += 1
        return self.iterate(self._passes - 1)

    def iterate(self, pass_number: int) -> Iterator[Any]:
        """Pass `pass_number` (what the pass_number-th ``iter`` gives; e.g. to resume a training at
        an epoch), leaving the count of passes as it is."""
        pass_number = integer(pass_number, "tp.data.Dataset.iterate", "pass_number", minimum=0)
        return self._elements(pass_number)

    def __len__(self) -> int:
        """The number of elements of a pass (batches after ``batch``)."""
        if self._size is None:
            raise ArgumentError("len(tp.data.Dataset): this dataset repeats endlessly (repeat() without a "
                                "count), so it has no length; give repeat a count, or take(n).")
        return self._size

    @property
    def batch_size(self) -> int | None:
        """The batch size given to ``batch`` (None before it: the elements are examples)."""
        return self._batch_size

    def __repr__(self) -> str:
        size = "endless" if self._size is None else str(self._size)
        kind = "examples" if self._batch_size is None else f"batches of {self._batch_size}"
        return f"<tp.data.Dataset: {size} {kind}, {len(self._leaves)} leaves>"

    # -- inside ------------------------------------------------------------------------------
    def _derived(self, keys: _Keys, size: int | None) -> Dataset:
        new = copy.copy(self)
        new._keys, new._size, new._passes = keys, size, 0
        return new

    def _elements(self, pass_number: int) -> Iterator[Any]:
        leaves, treedef = self._leaves, self._treedef
        example_maps, batch_maps, batched = self._example_maps, self._batch_maps, self._batch_size is not None
        for run in self._keys(pass_number):
            for key in run:  # (an example's row, or a batch's rows: one fancy index per leaf)
                if not batched:
                    element = _mapped(example_maps, _example(treedef, leaves, key))
                elif not example_maps:
                    element = tree_unflatten(treedef, [x[key] for x in leaves])
                else:
                    element = _stacked([_mapped(example_maps, _example(treedef, leaves, i)) for i in key])
                yield _mapped(batch_maps, element)


def _source(tree: Any, where: str) -> tuple[list[np.ndarray], PyTreeDef]:
    """The leaves of `tree` as numpy arrays of one length along axis 0, and its structure."""
    paths, leaves, treedef = tree_flatten_with_path(tree)
    if not leaves:
        raise ArgumentError(f"{where}: the tree {shown(tree)} has no leaves; give an array, or a dict, tuple "
                            "or list of arrays.")
    arrays = []
    for path, leaf in zip(paths, leaves):
        array = np.asarray(leaf)
        if array.dtype == object or array.ndim == 0:
            what = "a 0-d value" if array.ndim == 0 else "not an array of numbers"
            raise ShapeError(f"{where}: leaf {keystr(path) or '(the root)'} is {shown(leaf)}, {what}; "
                             "each leaf must be an array whose axis 0 runs over the examples (a nested "
                             "Python list is a tree of numbers here: pass np.asarray(...) of it).")
        arrays.append(array)
    lengths = {len(a) for a in arrays}
    if len(lengths) > 1:
        listed = ", ".join(f"{keystr(p) or '(the root)'}: {len(a)}" for p, a in zip(paths, arrays))
        raise ShapeError(f"{where}: the leaves have different lengths along axis 0 ({listed}); every leaf "
                         "holds one row per example, so give leaves of one length.")
    return arrays, treedef


def _example(treedef: PyTreeDef, leaves: list[np.ndarray], row: int) -> Any:
    """Example `row`: a tree of arrays (0-d ones too: not numpy scalars)."""
    return tree_unflatten(treedef, [x[row, ...] for x in leaves])


def _chunked(inner: _Keys, size: int, drop_remainder: bool) -> _Keys:
    """Batch keys: the example keys of a pass cut into arrays of `size` (across runs)."""
    def keys(pass_number: int) -> Iterator[np.ndarray]:
        pending = np.arange(0)
        for run in inner(pass_number):
            run = np.concatenate((pending, run)) if len(pending) else run
            full = len(run) - len(run) % size
            if full:
                yield _objects([run[i:i + size] for i in range(0, full, size)])
            pending = run[full:]
        if len(pending) and not drop_remainder:
            yield _objects([pending])
    return keys


def _objects(items: list[np.ndarray]) -> np.ndarray:
    """A 1-d object array of arrays (np.array would stack arrays of one length into 2-d)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _host(tree: Any) -> Any:
    """`tree` with Tensors (and other array-likes) as numpy arrays."""
    leaves, treedef = tree_flatten(tree)
    return tree_unflatten(treedef, [x.numpy() if isinstance(x, Tensor) else np.asarray(x) for x in leaves])


def _mapped(fns: tuple[Callable[[Any], Any], ...], element: Any) -> Any:
    for fn in fns:
        element = _host(fn(element))
    return element


def _stacked(examples: list[Any]) -> Any:
    """One batch from examples of one structure and shapes (what map before batch gave)."""
    treedef = tree_flatten(examples[0])[1]
    columns: list[list[Any]] = []
    for example in examples:
        leaves, other = tree_flatten(example)
        if other != treedef:
            raise ShapeError(f"tp.data.Dataset.batch: the function given to map returned examples of "
                             f"different structures ({treedef} and {other}); return one structure for every "
                             "example.")
        columns = columns or [[] for _ in leaves]
        for column, leaf in zip(columns, leaves):
            column.append(leaf)
    try:
        return tree_unflatten(treedef, [np.stack(column) for column in columns])
    except ValueError as exc:
        raise ShapeError(f"tp.data.Dataset.batch: the examples the function given to map returned cannot "
                         f"be stacked ({exc}); return arrays of one shape for every example.") from None


def batches(tree: Any, batch_size: int, *, shuffle_seed: int | None = None,
            drop_remainder: bool = False) -> Dataset:
    """``Dataset(tree)``, shuffled with `shuffle_seed` (unless None) and batched: the one-call form."""
    dataset = Dataset.__new__(Dataset)
    dataset._start(tree, "tp.data.batches")
    if shuffle_seed is not None:
        dataset = dataset.shuffle(shuffle_seed)
    return dataset.batch(batch_size, drop_remainder)


def as_batches(data: Any, batch_size: int | None = None, *, shuffle_seed: int | None = None) -> Iterable[Any]:
    """What a training loop iterates: a Dataset as it is (batched with `batch_size`, default
    ``DEFAULT_BATCH_SIZE``, if it holds examples), another iterable of batches (a generator of
    ``(x, y)`` tuples, say: used as it is, one pass if it is an iterator), or a tree of arrays
    (an array, a Tensor, a dict, tuple or list of them; None in it stays None in every batch,
    as in ``(x, None)``) as ``batches(data, batch_size, shuffle_seed=shuffle_seed)``: make it
    once and iterate it each epoch, for a new order each pass. `shuffle_seed` is for arrays
    only (a Dataset or an iterable orders its own elements). A batch_size other than a batched
    Dataset's own, or given with an iterable of batches, is an ArgumentError."""
    where = "tp.data.as_batches"
    if batch_size is not None:
        batch_size = integer(batch_size, where, "batch_size", minimum=1)
    if shuffle_seed is not None:
        shuffle_seed = integer(shuffle_seed, where, "shuffle_seed", minimum=0)
    if isinstance(data, Dataset):
        if data.batch_size is None:
            return data.batch(batch_size or DEFAULT_BATCH_SIZE)
        if batch_size is not None and batch_size != data.batch_size:
            raise ArgumentError(f"{where}: batch_size={batch_size} was given for a Dataset batched already "
                                f"by {data.batch_size}; leave batch_size out (None) for a batched Dataset.")
        return data
    if isinstance(data, (np.ndarray, Tensor)) or (is_node(data) and data is not None):
        dataset = Dataset.__new__(Dataset)
        try:
            dataset._start(data, where)
        except ShapeError as exc:
            if not isinstance(data, (list, tuple)):
                raise
            raise ShapeError(f"{exc} (A list or tuple is a tree of arrays here, not a list of batches: "
                             "pass iter(batches) for batches made already.)") from None
        if shuffle_seed is not None:
            dataset = dataset.shuffle(shuffle_seed)
        return dataset.batch(batch_size or DEFAULT_BATCH_SIZE)
    if isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
        if batch_size is not None:
            raise ArgumentError(f"{where}: batch_size={batch_size} was given with {shown(data)}, an "
                                "iterable of batches made already; leave batch_size out, or pass the arrays "
                                "themselves.")
        return data
    raise ArgumentError(f"{where}: got {shown(data)}; give a tp.data.Dataset, an iterable of batches (a "
                        "generator of (x, y) numpy tuples, say) or a tree of arrays (x, or (x, y)).")
