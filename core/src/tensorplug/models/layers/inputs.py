"""What a layer checks of the input it is called with (its rank, its size on one axis: a
``ShapeError`` saying what the layer expected and what it got; the message does not name the
layer, as ``Module.__call__`` puts its class and path in front), and the dtype and Variables a
layer makes from its first input."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.dtypes import DType, as_dtype, default_float
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families._common.convert import asarray
from tensorplug.families.creation.keys import fold_in

__all__ = ["Initial", "as_input", "call_flag", "drawn", "expect_rank", "expect_size", "flat_axes",
           "spatial_layout", "training_mode", "variable_dtype"]


def as_input(x: Any) -> Tensor:
    """`x` as a Tensor (a numpy array or nested list converted)."""
    return x if isinstance(x, Tensor) else asarray(x)


def variable_dtype(dtype: Any) -> DType:
    """The dtype of a layer's variables for inputs of `dtype`: a floating one as is, else the
    default float (float32)."""
    found = default_float if dtype is None else as_dtype(dtype)
    return found if found.is_floating else default_float


def drawn(init: Any, shape: tuple[int, ...], dtype: Any, source: int | Tensor | None) -> Tensor:
    """``init(shape, dtype, seed=source)``, or ``key=source`` for a key."""
    if isinstance(source, Tensor):
        return init(shape, dtype, key=source)
    return init(shape, dtype, seed=source)


class Initial:
    """What a layer needs to make its Variables, once: an initializer per variable name, in
    order, and the layer's seed or key (the i-th variable's seed is seed + i, its key
    ``tp.random.fold_in(key, i)``: ``derived(i)``). A layer drops it when
    built (``del self._initial``), so that two built layers of one configuration are the same
    pytree structure, whatever their seeds and initializers were (``tp.tree_map`` over two
    models, one ``tp.jit`` compilation for both)."""

    __slots__ = ("seed", "initializers")

    def __init__(self, seed: int | Tensor, **initializers: Any) -> None:
        self.seed, self.initializers = seed, initializers

    def derived(self, index: int) -> int | Tensor:
        """The seed (seed + index) or key (the key folded with index) of the index-th variable."""
        return fold_in(self.seed, index) if isinstance(self.seed, Tensor) else self.seed + index

    @staticmethod
    def of(layer: Any) -> Initial:
        """`layer`'s Initial; an ArgumentError once the layer is built (it dropped it then)."""
        initial = vars(layer).get("_initial")
        if initial is None:
            raise ArgumentError(f"{type(layer).__name__}.build: the layer is built already (its variables "
                                "exist); make a new layer for inputs of another shape.")
        return initial

    def variable(self, name: str, shape: tuple[int, ...], dtype: Any) -> Variable:
        """The trainable Variable `name` of `shape`, in the dtype of inputs of `dtype`."""
        source = self.derived(list(self.initializers).index(name))
        return Variable(drawn(self.initializers[name], shape, variable_dtype(dtype), source))


_SPATIAL = {1: ("length",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def spatial_layout(rank: int, data_format: str) -> str:
    """The axes of a `rank`-d layer's input, for messages: 'batch, height, width, channels'."""
    axes = ("batch", *_SPATIAL[rank], "channels") if data_format == "channels_last" else (
        "batch", "channels", *_SPATIAL[rank])
    return ", ".join(axes)


def expect_rank(shape: tuple[Any, ...], rank: int, layout: str) -> None:
    """ShapeError unless `shape` has `rank` dims, laid out as `layout` says ("batch, height,
    width, channels")."""
    if len(shape) != rank:
        hint = " Add a batch axis with tp.expand_dims(x, 0)." if len(shape) == rank - 1 else ""
        raise ShapeError(f"expected {rank}-d inputs ({layout}), got shape {tuple(shape)}.{hint}")


def expect_size(shape: tuple[Any, ...], axis: int, size: int, what: str) -> None:
    """ShapeError unless `shape` has `size` on `axis`; `what` names that axis ("channels")."""
    if shape[axis] != size:
        raise ShapeError(f"expected inputs with {size} {what} on axis {axis} (it was built for those), got "
                         f"shape {tuple(shape)}; give it inputs of {size} {what}, or make a new layer for "
                         "these.")


def flat_axes(axis: int | tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """The non-negative axes `axis` names in an `ndim`-d input, in the order given (raised while
    the layer is called: Module.__call__ puts the layer's name and path in front)."""
    given = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in given:
        if not -ndim <= a < ndim:
            raise ShapeError(f"axis {a} is out of range for an input of {ndim} dimensions; the "
                             f"input must have at least {-a if a < 0 else a + 1} dimensions.")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"axis {axis} names one axis of a {ndim}-d input twice.")
    return tuple(out)


def training_mode(value: Any, default: bool) -> bool:
    """A call's `training` argument: None is the layer's mode (`default`), else a bool (raised
    while the layer is called: Module.__call__ puts the layer's name and path in front)."""
    if value is None:
        return default
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ArgumentError("training must be True, False or None (the layer's mode, set by train() and "
                        f"eval()), got {valid.shown(value)}.")


def call_flag(value: Any, arg: str) -> bool:
    """A call's True/False argument (raised while the layer is called, as `training_mode`)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ArgumentError(f"{arg} must be True or False, got {valid.shown(value)}.")
