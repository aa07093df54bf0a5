"""How an initializer of ``tp.nn.initializers`` is called: JAX's form ``init(key, shape,
dtype=tp.float32)`` (a Tensor first is a key, as tp.random tells them apart) or
``init(shape, dtype, seed=0)`` / ``init(shape, dtype, key=key)``; the checks of a call's
arguments, each error naming the initializer."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, float32
from tensorplug.errors import ArgumentError
from tensorplug.families.creation.keys import key_parts
from tensorplug.families.creation.ops import new_shape
from tensorplug.families.creation.spec import random_dtype

__all__ = ["arguments", "checked_seed", "in_dtype", "random_call"]


def checked_seed(seed: Any, name: str) -> int:
    """`seed` as an int; ArgumentError naming the initializer when it is missing or not an int."""
    if seed is None:
        raise ArgumentError(f"{name}: seed is required, or a key (tensorplug has no global random "
                            f"state); call it as init(tp.random.key(0), shape) or init(shape, seed=0).")
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise ArgumentError(f"{name}: seed must be an int, got {valid.shown(seed)}; "
                            f"call it as init(shape, seed=0).")
    return int(seed)


def arguments(name: str, args: tuple[Any, ...], dtype: Any, seed: Any,
              key: Any) -> tuple[Any, Any, Any, Tensor | None]:
    """(shape, dtype, seed, key) of a call in either form: ``(key, shape[, dtype])`` (a Tensor
    first is a key, as tp.random tells them apart) or ``(shape[, dtype], seed=|key=)``; an
    ArgumentError naming the initializer for a key or dtype given twice, both a seed and a key,
    or a wrong count of arguments."""
    if args and isinstance(args[0], Tensor):
        if key is not None:
            raise ArgumentError(f"{name}: got a key first and key= too; pass it once: init(key, shape).")
        key, args = args[0], args[1:]
    if not 1 <= len(args) <= 2:
        raise ArgumentError(f"{name}: takes a shape and a dtype after the key (if any), got {len(args)} "
                            f"positional argument(s); call it as init(key, shape, dtype=tp.float32) "
                            f"or init(shape, dtype, seed=0).")
    if len(args) == 2:
        if dtype is not ...:
            raise ArgumentError(f"{name}: got the dtype twice (as an argument and as dtype=); pass it once.")
        dtype = args[1]
    if seed is not None and key is not None:
        raise ArgumentError(f"{name}: got both seed={valid.shown(seed)} and a key; pass one of them: "
                            f"init(key, shape) or init(shape, seed=0).")
    if key is not None:
        key_parts(key, name)
    return args[0], float32 if dtype is ... else dtype, seed, key


def random_call(name: str, args: tuple[Any, ...], dtype: Any, seed: Any,
                key: Any) -> tuple[tuple[int, ...], DType, int | Tensor]:
    """The checked shape, floating dtype and source (the key, or else the seed: one is
    required) of a random initializer's call."""
    shape, dt, seed, key = arguments(name, args, dtype, seed, key)
    dims, dt = new_shape(shape, name), random_dtype(valid.dtype(dt, name), name)
    return dims, dt, checked_seed(seed, name) if key is None else key


def in_dtype(value: float, dtype: DType) -> float:
    """`value` rounded to `dtype`, as JAX's ``jnp.array(value, dtype)`` makes its constants."""
    return float(np.array(value, dtype.numpy))
