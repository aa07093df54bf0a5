"""The NumPy backend object: native arrays are numpy arrays (never written after creation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, from_numpy_dtype
from tensorplug.extend import Backend, PlannedFunction

_DTYPES: dict[Any, DType] = {}


class NumpyBackend(Backend):
    """Holds numpy arrays on the CPU (never written after creation, so scalars are shared).
    ``tp.jit`` compiles by planning: a trace's kernel calls, replayed (``tensorplug.plan``)."""

    reuses_scalars = True
    packs_jit_state = False  # tp.jit plans: its planned functions take each array as it is

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def to_numpy(self, native: np.ndarray) -> np.ndarray:
        view = np.asarray(native).view()
        view.setflags(write=False)  # (cheaper than going through view.flags)
        return view

    def dtype_of(self, native: Any) -> DType:
        try:
            return _DTYPES[native.dtype]
        except KeyError:
            dt = _DTYPES[native.dtype] = from_numpy_dtype(native.dtype)
            return dt

    def shape_of(self, native: Any) -> tuple[int, ...]:
        return native.shape

    def compile(self, fn: Callable[..., Any], static_argnums: tuple[int, ...] = ()) -> Callable[..., Any]:
        return PlannedFunction(self, fn)
