"""What a layer checks of the input it is called with (its rank, its size on one axis: a
``ShapeError`` saying what the layer expected and what it got; the message does not name the
layer, as ``Module.__call__`` puts its class and path in front), and the dtype and Variables a
layer makes from its first input."""

from __future__ import annotations

from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.dtypes import DType, as_dtype, default_float
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families._common.convert import asarray

__all__ = ["Initial", "as_input", "expect_rank", "expect_size", "spatial_layout", "variable_dtype"]


def as_input(x: Any) -> Tensor:
    """`x` as a Tensor (a numpy array or nested list converted)."""
    return x if isinstance(x, Tensor) else asarray(x)


def variable_dtype(dtype: Any) -> DType:
    """The dtype of a layer's variables for inputs of `dtype`: a floating one as is, else the
    default float (float32)."""
    found = default_float if dtype is None else as_dtype(dtype)
    return found if found.is_floating else default_float


class Initial:
    """What a layer needs to make its Variables, once: an initializer per variable name, in
    order, and the layer's seed (the i-th variable's seed is seed + i). A layer drops it when
    built (``del self._initial``), so that two built layers of one configuration are the same
    pytree structure, whatever their seeds and initializers were (``tp.tree_map`` over two
    models, one ``tp.jit`` compilation for both)."""

    __slots__ = ("seed", "initializers")

    def __init__(self, seed: int, **initializers: Any) -> None:
        self.seed, self.initializers = seed, initializers

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
        seed = self.seed + list(self.initializers).index(name)
        return Variable(self.initializers[name](shape, variable_dtype(dtype), seed=seed))


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
