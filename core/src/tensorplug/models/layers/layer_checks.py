"""The argument checks of the normalization, dropout, embedding and attention layers: each
names the layer class and the argument, and says what the argument accepts."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.dtypes import DType, float32
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.models.seeding import next_seed

__all__ = ["layer_seed", "positive", "epsilon", "rate", "axes", "flat_axes", "training_mode",
           "call_flag", "variable_dtype"]


def layer_seed(seed: Any, layer: str) -> int:
    """`seed` as an int; None draws the next seed of ``tp.nn.set_seed``'s sequence."""
    return next_seed() if seed is None else valid.integer(seed, layer, "seed")


def positive(value: Any, layer: str, arg: str) -> int:
    """An int >= 1 (a size: units, heads, groups)."""
    return valid.integer(value, layer, arg, minimum=1)


def epsilon(value: Any, layer: str) -> float:
    """A finite float > 0 (what keeps a normalization's divisor away from 0)."""
    eps = float(valid.number(value, layer, "epsilon"))
    if not 0 < eps < math.inf:
        raise ShapeError(f"{layer}: epsilon must be a finite number > 0, got {eps}; the default is fine "
                         "in most cases (e.g. 1e-3).")
    return eps


def rate(value: Any, layer: str, arg: str = "rate") -> float:
    """A probability in [0, 1) (a dropout rate)."""
    r = float(valid.number(value, layer, arg))
    if not 0.0 <= r < 1.0:
        raise ShapeError(f"{layer}: {arg} must be in [0, 1) (the probability of dropping an element), got "
                         f"{r}; e.g. {arg}=0.1, or 0.0 for no dropout.")
    return r


def axes(value: Any, layer: str, arg: str = "axis") -> int | tuple[int, ...]:
    """An axis (an int) or a non-empty tuple of distinct ints (lists become tuples, so the
    layer's configuration stays comparable)."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise ArgumentError(f"{layer}: {arg} must name at least one axis, got {value!r}.")
        out = tuple(valid.integer(a, layer, arg) for a in value)
        if len(set(out)) != len(out):
            raise ShapeError(f"{layer}: {arg} {out} names an axis twice.")
        return out
    return valid.integer(value, layer, arg)


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


def variable_dtype(dtype: Any, layer: str) -> DType:
    """The dtype of a layer's variables for inputs of `dtype`: the input's if it is a real
    float, float32 otherwise (integer inputs, or none known)."""
    if dtype is None:
        return float32
    dt = valid.dtype(dtype, layer)
    return dt if dt.is_floating else float32
