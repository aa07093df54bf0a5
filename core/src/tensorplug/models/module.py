"""``tp.nn.Module``: the base class of layers and models.

A module's attributes that hold state (Variables, tensors, numpy arrays, other modules, and
lists, tuples and dicts of them) are its *children*, tracked in the order they were first
assigned and named by their dotted path (``"layers.0.kernel"``); its other attributes (sizes,
functions, the ``training`` flag) are its *static* configuration. Every subclass is a node of
``tp.tree_util``: the transforms, ``tp.jit``, the optimizers and ``tp.save``/``tp.load`` take a
module as they take a dict of its children.

Calling a module runs ``build(input_shape)`` once if the module is not built yet (a layer that
sizes its variables from its first input), then ``forward``. An error raised inside names the
module that raised it by its path in the outermost module called.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from tensorplug.core.context import jit_trace_var
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.errors import ArgumentError, ShapeError, TensorplugError, TracedValueError
from tensorplug.io.saving import load as load_file
from tensorplug.io.saving import save as save_file
from tensorplug.models.calls import calls, record_output, remember_input, shape_and_dtype
from tensorplug.models.module_tree import ModuleDef, split_attributes
from tensorplug.models.summary import run_on_zeros, summary_table
from tensorplug.models.training import evaluate, fit, predict
from tensorplug.tree_util import is_node, register_pytree_node, tree_flatten_with_path, tree_leaves, tree_map

__all__ = ["Module"]



class Module:
    """The base class of layers and models: subclass it, assign Variables and modules as
    attributes in ``__init__`` (or in ``build``), and define ``forward``.

    ``training`` (default True, as in PyTorch) is read by the layers that act differently in
    training (dropout, batch normalization); ``train()`` and ``eval()`` set it on every module
    of the tree. ``frozen`` modules (``freeze()``) keep their variables out of
    ``trainable_variables()``."""

    training: bool = True
    frozen: bool = False
    built: bool = True  # a layer sized by its first input sets False until its build() ran

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _register(cls)
        if "build" in cls.__dict__:  # (a layer's build, called by hand too, leaves it built)
            cls.build = _marking_built(cls.__dict__["build"])  # type: ignore[method-assign]

    # -- calling ---------------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The module's computation; subclasses define it (``module(x)`` calls it)."""
        raise ArgumentError(f"{type(self).__name__}: define forward(self, ...) to say what the module "
                            "computes; calling a module runs build (once, if needed) and then forward.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        outer = calls.get()
        token = calls.set((*outer, self))
        try:
            if not self.built:
                self._build_from(args)
            if not outer and args:
                remember_input(self, args[0])
            out = self.forward(*args, **kwargs)
        except TensorplugError as exc:
            if not hasattr(exc, "module"):
                exc.module = self  # type: ignore[attr-defined]  # (the innermost module that raised)
                if exc.args and isinstance(exc.args[0], str):
                    exc.args = (_named(exc.args[0], self, self._title(outer[0] if outer else None)),
                                *exc.args[1:])
            raise
        finally:
            calls.reset(token)
        record_output(self, out)
        return out

    def _title(self, root: Module | None) -> str:
        """How an error names this module: its class and its path in `root`."""
        if root is None or root is self:
            return type(self).__name__
        path = next((p for p, m in root.named_modules() if m is self), None)
        return f"{type(self).__name__} '{path}'" if path else type(self).__name__

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Make the variables for inputs of `input_shape`. A layer sized by its input overrides
        this (it is called with the first input's shape); here, for any module, it runs the
        module once on zeros of that shape (``None`` dimensions taken as 1, `dtype` default
        float32) in eval mode, so that every layer inside builds itself."""
        run_on_zeros(self, input_shape, dtype)

    def _build_from(self, args: tuple[Any, ...]) -> None:
        if jit_trace_var.get() is not None:
            raise TracedValueError(f"{type(self).__name__} is not built yet: its variables are made from the "
                                   "shape of its first input, and tp.jit cannot make Variables inside a "
                                   "compiled function. Call the model once outside tp.jit, or call "
                                   "model.build(input_shape), before compiling.")
        if not args:
            raise ArgumentError(f"{type(self).__name__}: called with no input; it builds its variables from "
                                "the shape of its first argument.")
        shape, dtype = shape_and_dtype(args[0])
        self.build(shape, dtype)
        self.built = True

    # -- the tree --------------------------------------------------------------------------
    def children(self) -> dict[str, Any]:
        """The attributes that hold state, by name, in the order they were first assigned."""
        return split_attributes(self)[0]

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """Every module of the tree (this one first, as `prefix`), each once, with its dotted path."""
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:
            path, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield path, module
            inner = [(_dotted(path, (name, *keys)), m) for name, value in vars(module).items()
                     for keys, m in _modules_in(value)]
            stack.extend(reversed(inner))  # (depth first, in assignment order)

    def modules(self) -> list[Module]:
        """Every module of the tree, this one first, each once."""
        return [m for _, m in self.named_modules()]

    def named_variables(self) -> list[tuple[str, Variable]]:
        """Every Variable of the tree with its dotted path, in tree order, each once."""
        seen: set[int] = set()
        out = []
        for path, leaf in _paths(self):
            if isinstance(leaf, Variable) and id(leaf) not in seen:
                seen.add(id(leaf))
                out.append((_dotted("", path), leaf))
        return out

    def variables(self) -> list[Variable]:
        """Every Variable of the tree, each once: the trainable ones and the state (batch norm's
        statistics)."""
        unique = {id(v): v for v in tree_leaves(self) if isinstance(v, Variable)}  # (in tree order)
        return list(unique.values())

    def trainable_variables(self) -> list[Variable]:
        """The Variables an optimizer trains: those made trainable, outside frozen modules."""
        frozen = {id(v) for m in self.modules() if m.frozen for v in m._own_variables()}
        return [v for v in self.variables() if v.trainable and id(v) not in frozen]

    def non_trainable_variables(self) -> list[Variable]:
        """The Variables the optimizer leaves alone: state (statistics) and frozen parameters."""
        trainable = {id(v) for v in self.trainable_variables()}
        return [v for v in self.variables() if id(v) not in trainable]

    def _own_variables(self) -> list[Variable]:
        return [x for value in self.children().values() for x in tree_leaves(value, is_leaf=_is_module)
                if isinstance(x, Variable)]

    def count_params(self) -> int:
        """The number of scalars in the tree's Variables."""
        return sum(int(np.prod(v.shape)) for v in self.variables())

    # -- modes -----------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (or eval mode with ``mode=False``) on every module; returns self."""
        if not isinstance(mode, bool):
            raise ArgumentError(f"{type(self).__name__}.train: mode must be a bool, got {mode!r}.")
        for m in self.modules():
            m.training = mode
        return self

    def eval(self) -> Module:
        """``train(False)``: the layers act as at inference (no dropout, running statistics)."""
        return self.train(False)

    def freeze(self) -> Module:
        """Keep every variable of the tree out of ``trainable_variables()``; returns self."""
        for m in self.modules():
            m.frozen = True
        return self

    def unfreeze(self) -> Module:
        """Undo ``freeze()`` on every module of the tree; returns self."""
        for m in self.modules():
            m.frozen = False
        return self

    # -- training (tensorplug.models.training: plain code, to read and copy into a custom loop) --
    fit = fit
    evaluate = evaluate
    predict = predict

    # -- files -----------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write every variable and tensor of the tree to `path` by its dotted path (``tp.save``)."""
        save_file(path, self)

    def load(self, path: str | os.PathLike[str]) -> Module:
        """Assign every variable of the tree the value `path` holds for its path (a file written
        by ``save`` or ``tp.save``); every missing, extra or mis-shaped entry is named in one
        CheckpointError, before anything changes. Returns self."""
        loaded = load_file(path, like=self)
        self._adopt(loaded)
        return self

    def assign_variables(self, values: Mapping[str, Any]) -> Module:
        """Assign each Variable the value `values` gives for its dotted path (as
        ``named_variables`` names them); every missing, extra or mis-shaped entry is named in one
        ShapeError before anything changes. Returns self."""
        if not isinstance(values, Mapping):
            raise ArgumentError(f"{type(self).__name__}.assign_variables: values must be a dict of dotted "
                                f"paths to arrays, got {type(values).__name__}.")
        mine = dict(self.named_variables())
        problems = [f"missing: {path!r}" for path in mine if path not in values]
        problems += [f"extra: {path!r} (no variable there)" for path in values if path not in mine]
        for path, value in values.items():
            if path in mine and tuple(np.shape(value)) != tuple(mine[path].shape):
                problems.append(f"{path!r}: shape {tuple(np.shape(value))}, the variable's "
                                f"{tuple(mine[path].shape)}")
        if problems:
            raise ShapeError(f"{type(self).__name__}.assign_variables: the values do not fit the model "
                             f"({len(problems)} problems): " + "; ".join(problems) + ".")
        for path, variable in mine.items():
            variable.assign(values[path])
        return self

    def _adopt(self, other: Module) -> None:
        """Take `other`'s tensors (a tree of this structure), keeping this tree's modules."""
        for name, value in other.children().items():
            mine = self.__dict__[name]
            self.__dict__[name] = tree_map(_adopted, mine, value, is_leaf=_is_module)

    # -- looks -----------------------------------------------------------------------------
    def summary(self, input_shape: tuple[int | None, ...] | None = None, dtype: Any = None,
                print_fn: Callable[[str], Any] = print) -> None:
        """Print each module's path, type, output shape and parameter count, and the totals (as
        Keras does), from a run on zeros of `input_shape` (default: the shape of the first input
        the model was called with; ``None`` dimensions show as None)."""
        print_fn(summary_table(self, input_shape, dtype))

    def __repr__(self) -> str:
        """The class, its public settings, and its modules one per line (as PyTorch shows them)."""
        config = ", ".join(f"{k}={v!r}" for k, v in split_attributes(self)[1].items()
                           if not k.startswith("_") and k not in ("training", "frozen", "built"))
        inner = [(_dotted(name, keys), m) for name, value in vars(self).items()
                 for keys, m in _modules_in(value)]
        if not inner:
            return f"{type(self).__name__}({config})"
        lines = [f"  ({path}): " + repr(m).replace("\n", "\n  ") for path, m in inner]
        return "\n".join([f"{type(self).__name__}({config}", *lines, ")"])


# -- helpers ----------------------------------------------------------------------------------
def _register(cls: type[Module]) -> None:
    register_pytree_node(cls, _flatten, ModuleDef.rebuild)


def _named(message: str, module: Module, title: str) -> str:
    """`message` opened by the module's title (its class and path); a message that opens with
    the class's name already (a validator's "Dropout: rate ...") gets the path there instead."""
    own = f"{type(module).__name__}: "
    return f"{title}: {message[len(own):] if message.startswith(own) else message}"


def _marking_built(build: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(build)
    def built(self: Module, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        self.built = True

    return built


def _flatten(module: Module) -> tuple[list[Any], ModuleDef, list[str]]:
    children, statics = split_attributes(module)
    return list(children.values()), ModuleDef(type(module), tuple(module.__dict__), statics), list(children)


def _is_module(x: Any) -> bool:
    return isinstance(x, Module)


def _modules_in(value: Any) -> list[tuple[tuple[Any, ...], Module]]:
    """The modules an attribute's value holds, outermost ones only, with their keys in it."""
    if isinstance(value, Module):
        return [((), value)]
    if isinstance(value, (Tensor, np.ndarray, str, int, float)) or value is None or callable(value):
        return []
    if isinstance(value, (list, tuple, dict)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return [((key, *keys), m) for key, item in items for keys, m in _modules_in(item)]
    if is_node(value):  # (another registered node: a dataclass of layers, say)
        return [(p, m) for p, m in _paths(value, is_leaf=_is_module) if isinstance(m, Module)]
    return []


def _paths(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[tuple[tuple[Any, ...], Any]]:
    paths, leaves, _ = tree_flatten_with_path(tree, is_leaf=is_leaf)
    return list(zip(paths, leaves))


def _dotted(prefix: str, path: tuple[Any, ...]) -> str:
    parts = [prefix] if prefix else []
    return ".".join([*parts, *(str(p) for p in path)])


def _adopted(mine: Any, theirs: Any) -> Any:
    if isinstance(mine, Module):
        mine._adopt(theirs)
        return mine
    return theirs


_register(Module)
