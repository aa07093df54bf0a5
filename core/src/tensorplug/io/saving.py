"""Saving and loading (``tp.save``, ``tp.load``): a tree of tensors, Variables, numpy arrays,
Python values and optimizer states to one safetensors file and back, onto any backend.

The file is a plain safetensors file: its tensors under their path in the tree (``"params/w"``,
``"opt/slots/Variable_3/m"``), and in its string metadata, under ``"tensorplug"``, the tree's
structure as JSON (containers, dict keys, Python values, which leaf is a Variable and its name,
each tensor's dtype). ``safetensors`` is an optional dependency:
``pip install "tensorplug-core[save]"``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.core import validate as valid
from tensorplug.core.lazy_modules import lazy_module
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable, _registry
from tensorplug.dtypes import from_numpy_dtype
from tensorplug.errors import ArgumentError, CheckpointError, TensorplugError
from tensorplug.families._common.convert import asarray
from tensorplug.io import saved_nodes as nodes
from tensorplug.io.checkpoint_file import (
    AS_PARTS,
    FORMAT,
    checked_path,
    read,
    refused,
    safetensors_module,
    write,
)
from tensorplug.optimizers.state import OptimizerState

if TYPE_CHECKING:
    import pathlib
else:  # (run at the first save or load, issue 37)
    pathlib = lazy_module("pathlib")

__all__ = ["save", "load"]


# -- save -------------------------------------------------------------------------------------
class _Writer:
    """Walks a tree into its JSON structure, collecting its arrays under path keys."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self._open: set[int] = set()  # the containers being walked: one met again is a cycle

    def key(self, path: tuple[Any, ...]) -> str:
        key = "/".join(str(p) for p in path) or "."
        base, n = key, 1
        while key in self.arrays:  # (a dict key with a "/" in it may meet another path)
            key, n = f"{base}#{n}", n + 1
        return key

    def array(self, kind: str, value: np.ndarray, dtype: str, path: tuple[Any, ...]) -> dict[str, Any]:
        key = self.key(path)
        stored = value.view(AS_PARTS[dtype]).reshape(*value.shape, 2) if dtype in AS_PARTS else value
        self.arrays[key] = stored if stored.flags.c_contiguous else stored.copy(order="C")  # (ndim kept)
        return {"kind": kind, "key": key, "dtype": dtype}

    def node(self, obj: Any, path: tuple[Any, ...]) -> dict[str, Any]:
        if isinstance(obj, Variable):
            return {**self.array("variable", obj.numpy(), obj.dtype.name, path),
                    "name": obj.name, "trainable": obj.trainable}
        if isinstance(obj, Tensor):
            return self.array("tensor", obj.numpy(), obj.dtype.name, path)
        if isinstance(obj, (np.ndarray, np.generic)):
            try:
                dtype = from_numpy_dtype(obj.dtype).name
            except Exception:
                raise ArgumentError(f"tp.save: the numpy array at {_shown(path)} has dtype {obj.dtype}, "
                                    "which "
                                    "tensorplug has no dtype for; convert it (or leave it out).") from None
            return self.array("ndarray" if isinstance(obj, np.ndarray) else "numpy_scalar",
                              np.asarray(obj), dtype, path)
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return {"kind": "value", "value": obj}
        if isinstance(obj, OptimizerState):
            return {"kind": "optimizer_state", "iterations": self.node(obj.iterations, (*path, "iterations")),
                    "hyperparameters": self.node(dict(obj.hyperparameters), (*path, "hyperparameters")),
                    "slots": self.node({k: dict(v) for k, v in obj.slots.items()}, (*path, "slots"))}
        if isinstance(obj, Mapping) or type(obj) in (list, tuple):
            if id(obj) in self._open:
                raise ArgumentError(f"tp.save: the {type(obj).__name__} at {_shown(path)} holds itself "
                                    "(the tree has a cycle); a tree must be finite: save a copy without "
                                    "the loop.")
            self._open.add(id(obj))
            try:
                return self._container(obj, path)
            finally:
                self._open.discard(id(obj))
        registered = nodes.encode(obj, path, _shown(path), self.node)
        if registered is not None:  # (a class registered with tp.tree_util.register_pytree_node)
            return registered
        if callable(obj):  # a learning-rate schedule: code, not data
            return {"kind": "callable", "name": getattr(obj, "__qualname__", type(obj).__name__)}
        raise ArgumentError(f"tp.save: cannot save the {type(obj).__name__} at {_shown(path)}; a tree holds "
                            "dicts, lists and tuples of tensors, Variables, numpy arrays, optimizer states, "
                            "and None, bool, int, float or str values, and the classes registered with "
                            "tp.tree_util.register_pytree_node: register its class.")

    def _container(self, obj: Any, path: tuple[Any, ...]) -> dict[str, Any]:
        if isinstance(obj, Mapping):
            items = []
            for k, v in obj.items():
                if isinstance(k, bool) or not isinstance(k, (str, int)):
                    raise ArgumentError(f"tp.save: dict keys must be str or int; the dict at {_shown(path)} "
                                        f"has the key {k!r} ({type(k).__name__})")
                items.append([k, self.node(v, (*path, k))])
            return {"kind": "dict", "items": items}
        children = [self.node(v, (*path, i)) for i, v in enumerate(obj)]
        return {"kind": type(obj).__name__, "items": children}


def save(path: str | os.PathLike[str], tree: Any) -> None:
    """Write `tree` (any nesting of dicts, lists and tuples of Tensors, Variables, numpy
    arrays, optimizer states (``opt.state``) and None/bool/int/float/str values) to the
    safetensors file `path`, replacing it, from any backend.

    A callable in the tree (an optimizer's learning-rate schedule) is code, not data: it is not
    saved, and loads as None (an optimizer given such a state keeps its own schedule).

    A symlink is followed (its target is written); a path that exists and is no regular file
    (a device, a fifo) is refused, as is what the file system refuses: a CheckpointFileError
    naming the path and the cause."""
    given = checked_path(path, "save")
    target = pathlib.Path(os.path.realpath(given))  # (a symlink: its target is replaced, not the link)
    safetensors = safetensors_module("save")
    writer = _Writer()
    structure = writer.node(tree, ())
    metadata = {"format": FORMAT, "tree": json.dumps(structure)}
    data = safetensors.numpy.save(writer.arrays, metadata=metadata)
    try:
        write(given, target, data)
    except OSError as exc:  # (a folder we may not look into, say)
        if isinstance(exc, TensorplugError):
            raise
        raise refused("save", target, exc) from exc


# -- load -------------------------------------------------------------------------------------
class _Reader:
    """Builds a tree from its JSON structure and arrays, on a backend; with `like`, checks it
    against a given tree (collecting every difference) and restores into its Variables."""

    def __init__(self, arrays: Mapping[str, np.ndarray], backend: str | None, assign: bool = True,
                 renames: Mapping[str, str] | None = None) -> None:
        self.arrays, self.backend, self.assign = arrays, backend, assign
        self.renames = renames or {}  # saved Variable name -> the name of the Variable given for it
        self.variables: dict[str, Variable] = {}  # (by key, made first: make_variables)
        self.differences: list[str] = []

    def make_variables(self, structure: Mapping[str, Any]) -> None:
        """The tree's Variables, made first (by key): a Variable keeps its saved name unless a
        live Variable has it, and optimizer states' slots follow a new name wherever they are."""
        renames = {}
        for node in _nodes(structure):
            if node["kind"] == "variable":
                value = self.tensor(self.array(node), self.backend)
                name = node["name"] if node["name"] not in _registry else None  # taken: a new name
                with backend_scope(value.backend):  # (a Variable lives on the backend it is made on)
                    var = Variable(value, name=name, trainable=node["trainable"])
                self.variables[node["key"]], renames[node["name"]] = var, var.name
        self.renames = renames

    def array(self, node: Mapping[str, Any]) -> np.ndarray:
        if node["key"] not in self.arrays:
            raise CheckpointError(f"tp.load: the tree names the tensor {node['key']!r}, which the file does "
                                  "not hold: the file is damaged (or was changed after tp.save wrote it).")
        arr, dtype = self.arrays[node["key"]], node["dtype"]
        if dtype in AS_PARTS:
            arr = arr.copy(order="C").view(dtype)[..., 0]
        if from_numpy_dtype(arr.dtype).name != dtype:
            raise CheckpointError(f"tp.load: the tensor {node['key']!r} is stored as {arr.dtype}, but the "
                                  "tree "
                                  f"says {dtype}: the file is damaged")
        return arr.copy()  # (writable, and not holding the file's bytes)

    def slots_renamed(self, node: Mapping[str, Any]) -> dict[str, Any]:
        """An optimizer state's slots node, keyed by the names its Variables have now."""
        items = [[self.renames.get(k, k), v] for k, v in node["slots"]["items"]]
        return {**node["slots"], "items": items}

    def tensor(self, arr: np.ndarray, backend: str | None) -> Tensor:
        return asarray(arr, backend=backend)

    def build(self, node: Mapping[str, Any]) -> Any:
        kind = node["kind"]
        if kind == "value":
            return node["value"]
        if kind == "callable":
            return None
        if kind == "tensor":
            return self.tensor(self.array(node), self.backend)
        if kind == "ndarray":
            return self.array(node)
        if kind == "numpy_scalar":
            return self.array(node)[()]
        if kind == "variable":
            return self.variables[node["key"]]
        if kind == "dict":
            return {k: self.build(v) for k, v in node["items"]}
        if kind in ("list", "tuple"):
            items = [self.build(v) for v in node["items"]]
            return items if kind == "list" else tuple(items)
        if kind == "optimizer_state":
            return OptimizerState(self.build(node["iterations"]), self.build(node["hyperparameters"]),
                                  self.build(self.slots_renamed(node)))
        if kind == "node":
            return nodes.build(node, self.build)
        raise CheckpointError(f"tp.load: the tree holds a node of unknown kind {kind!r}: the file is damaged")

    def restore(self, node: Mapping[str, Any], like: Any, path: tuple[Any, ...]) -> Any:
        """The loaded value at `path`, checked against `like` (differences collected)."""
        kind = node["kind"]
        here = _shown(path)
        if kind in ("tensor", "variable", "ndarray", "numpy_scalar"):
            if not isinstance(like, (Tensor, np.ndarray, np.generic)):
                self.differences.append(f"{here}: the file has a tensor, the tree given {_describe(like)}")
                return like
            arr = self.array(node)
            given_dtype = like.dtype.name if isinstance(like, Tensor) else str(like.dtype)
            if tuple(arr.shape) != tuple(like.shape) or node["dtype"] != given_dtype:
                self.differences.append(f"{here}: the file has {node['dtype']}{list(arr.shape)}, the tree "
                                        f"given {given_dtype}{list(like.shape)}")
                return like
            if not self.assign:  # (only checking)
                return like
            if isinstance(like, Variable):
                return like.assign(self.tensor(arr, like.backend))
            if isinstance(like, Tensor):
                return self.tensor(arr, self.backend or like.backend)
            return arr if isinstance(like, np.ndarray) else arr[()]
        if kind == "dict":
            keyed = nodes.keyed_children(like)
            if keyed is not None:  # (a module: saved as a dict of its children)
                return nodes.with_children(like, self.restore(node, keyed, path))
            if not isinstance(like, Mapping):
                self.differences.append(f"{here}: the file has a dict, the tree given {_describe(like)}")
                return like
            saved = dict(node["items"])
            missing, extra = [k for k in like if k not in saved], [k for k in saved if k not in like]
            if missing or extra:
                self.differences.append(f"{here}: keys differ: only in the file {extra}, only in the tree "
                                        f"given {missing}")
            return {k: self.restore(saved[k], v, (*path, k)) if k in saved else v for k, v in like.items()}
        if kind in ("list", "tuple"):
            if type(like).__name__ != kind or len(like) != len(node["items"]):
                self.differences.append(f"{here}: the file has a {kind} of {len(node['items'])}, the tree "
                                        "given "
                                        f"{_describe(like)}")
                return like
            items = [self.restore(n, v, (*path, i)) for i, (n, v) in enumerate(zip(node["items"], like))]
            return items if kind == "list" else tuple(items)
        if kind == "optimizer_state":
            if not isinstance(like, OptimizerState):
                self.differences.append(f"{here}: the file has an optimizer state, the tree given "
                                        f"{_describe(like)}")
                return like
            # slots follow their Variables to the names of those given in their place; a fresh
            # optimizer (no slots yet) takes the file's slots as they are
            saved_slots = self.slots_renamed(node)
            slots: Any = (self.build(saved_slots) if self.assign else {}) if not like.slots else (
                self.restore(saved_slots, like.slots, (*path, "slots")))
            return OptimizerState(self.restore(node["iterations"], like.iterations, (*path, "iterations")),
                                  self.restore(node["hyperparameters"], like.hyperparameters,
                                               (*path, "hyperparameters")), slots)
        if kind == "node":
            return nodes.restore(node, like, path, here, self.differences, self.restore)
        if kind == "callable":
            return like
        value = node["value"]
        if type(like) is not type(value):
            self.differences.append(f"{here}: the file has {value!r}, the tree given {_describe(like)}")
        return value


def load(path: str | os.PathLike[str], backend: str | None = None, like: Any = None) -> Any:
    """The tree `path` holds (written by ``tp.save``), its tensors on `backend` (default: the
    active one): Tensors and Variables as they were saved (a Variable keeps its name unless a
    live Variable has it, then it gets a new one), numpy arrays as numpy arrays.

    With `like` (a tree of the same structure, e.g. the model's parameters and ``opt.state``),
    the file is checked against it first: every dict key, container, shape and dtype that
    differs is named in one ``CheckpointError``; then `like`'s Variables are assigned the
    saved values (on their own backend) and the tree is returned with its other leaves loaded.
    An optimizer state's slots follow their Variables: keyed by the names of `like`'s Variables
    (so ``opt.state = tp.load(path, like={"params": params, "opt": opt.state})["opt"]`` resumes
    training a freshly built model)."""
    target = checked_path(path, "load")
    if backend is not None:
        backend = valid.backend_name(backend, "load")
    structure, arrays = read(target)
    try:
        return _restored(target, structure, arrays, backend, like)
    except TensorplugError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # (not tp.save's tree)
        raise CheckpointError(f"tp.load: {str(target)!r} holds a damaged tree ({type(exc).__name__}: {exc}); "
                              "load a file as tp.save wrote it.") from exc


def _restored(target: pathlib.Path, structure: Any, arrays: Mapping[str, np.ndarray], backend: str | None,
              like: Any) -> Any:
    """The tree `structure` describes, with `arrays`; checked against and restored into `like`."""
    if like is None:
        reader = _Reader(arrays, backend)
        reader.make_variables(structure)
        return reader.build(structure)
    renames = dict(_renames(structure, like))
    reader = _Reader(arrays, backend, renames=renames)
    checker = _Reader(arrays, backend, assign=False, renames=renames)
    checker.restore(structure, like, ())  # (first all the differences, changing nothing)
    if checker.differences:
        shown = "\n  ".join(checker.differences[:20])
        more = f"\n  ... and {len(checker.differences) - 20} more" if len(checker.differences) > 20 else ""
        raise CheckpointError(f"tp.load: {str(target)!r} does not match the tree given as like= "
                              f"({len(checker.differences)} differences):\n  {shown}{more}\n"
                              "Pass the tree the file was saved from (or load without like=).")
    return reader.restore(structure, like, ())


def _nodes(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """`node` and every node below it."""
    yield node
    kind = node["kind"]
    if kind == "dict":
        children = [child for _, child in node["items"]]
    elif kind in ("list", "tuple"):
        children = node["items"]
    elif kind == "optimizer_state":
        children = [node["iterations"], node["hyperparameters"], node["slots"]]
    elif kind == "node":
        children = nodes.children_of(node)
    else:
        children = []
    for child in children:
        yield from _nodes(child)


def _renames(node: Mapping[str, Any], like: Any) -> Iterator[tuple[str, str]]:
    """(saved name, given name) of each saved Variable that `like` gives a Variable for."""
    kind = node["kind"]
    if kind == "variable" and isinstance(like, Variable):
        yield node["name"], like.name
    elif kind == "dict" and (isinstance(like, Mapping) or nodes.keyed_children(like) is not None):
        like = like if isinstance(like, Mapping) else nodes.keyed_children(like)
        for k, child in node["items"]:
            if k in like:
                yield from _renames(child, like[k])
    elif kind in ("list", "tuple") and type(like) in (list, tuple):
        for child, given in zip(node["items"], like):
            yield from _renames(child, given)
    elif kind == "node":
        for child, given in nodes.paired(node, like):
            yield from _renames(child, given)


def _shown(path: tuple[Any, ...]) -> str:
    return "the root" if not path else "".join(f"[{p!r}]" for p in path)


def _describe(obj: Any) -> str:
    if type(obj) in (list, tuple):
        return f"a {type(obj).__name__} of {len(obj)}"
    plain = obj is None or isinstance(obj, (bool, int, float, str))
    return f"{obj!r}" if plain else f"a {type(obj).__name__}"

