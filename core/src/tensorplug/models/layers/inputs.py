"""What a layer checks of the input it is called with (its rank, its size on one axis: a
``ShapeError`` saying what the layer expected and what it got; the message does not name the
layer, as ``Module.__call__`` puts its class and path in front), and the dtype and Variables a
layer makes from its first input."""

from __future__ import annotations

from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.dtypes import DType, as_dtype, default_float
from tensorplug.errors import ShapeError
from tensorplug.families._common.convert import asarray

__all__ = ["as_input", "expect_rank", "expect_size", "new_variable", "variable_dtype"]


def as_input(x: Any) -> Tensor:
    """`x` as a Tensor (a numpy array or nested list converted)."""
    return x if isinstance(x, Tensor) else asarray(x)


def variable_dtype(dtype: Any) -> DType:
    """The dtype of a layer's variables for inputs of `dtype`: a floating one as is, else the
    default float (float32)."""
    found = default_float if dtype is None else as_dtype(dtype)
    return found if found.is_floating else default_float


def new_variable(init: Any, shape: tuple[int, ...], dtype: Any, seed: int) -> Variable:
    """A trainable Variable of `init`'s values for `shape` and the `dtype` of the input."""
    return Variable(init(shape, variable_dtype(dtype), seed=seed))


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
