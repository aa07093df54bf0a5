"""The NumPy backend object: native arrays are numpy arrays (never written after creation)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, from_numpy_dtype
from tensorplug.extend import Backend, PlannedFunction

_DTYPES: dict[Any, DType] = {}


class NumpyBackend(Backend):
    """Holds numpy arrays on the CPU (never written after creation, so scalars are shared).
    ``tp.jit`` compiles by planning: a trace's kernel calls, replayed
    (``tensorplug.transforms.jit.planner``)."""

    reuses_scalars = True
    packs_jit_state = False  # tp.jit plans: its planned functions take each array as it is

    def __init__(self) -> None:
        # the dispatcher reads this on every call; CPython 3.11 reads an instance attribute
        # several times faster than a class one (~3 ns against ~20 ns)
        self.direct_kernels = True

    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def to_numpy(self, native: np.ndarray) -> np.ndarray:
        view = np.asarray(native).view()
        view.setflags(write=False)  # (cheaper than going through view.flags)
        return view

    def to_dlpack(self, native: np.ndarray, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                  dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """numpy's own export, zero-copy: read-only for consumers of DLPack 1.0; a legacy
        capsule (jax's ``from_dlpack``) cannot say read-only, and its consumer must not write."""
        if max_version is not None and max_version[0] >= 1:
            native = self.to_numpy(native)
        return native.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def from_dlpack(self, obj: Any, *, copy: bool | None = None) -> np.ndarray:
        """``np.from_dlpack``: shares the producer's memory unless `copy` (kernels never write)."""
        return np.from_dlpack(obj, copy=copy)

    def is_native(self, value: Any) -> bool:
        """numpy arrays, and numpy's scalars (what numpy gives for 0-d results)."""
        return isinstance(value, (np.ndarray, np.generic))

    def dtype_of(self, native: Any) -> DType:
        try:
            return _DTYPES[native.dtype]
        except KeyError:
            dt = _DTYPES[native.dtype] = from_numpy_dtype(native.dtype)
            return dt

    # native.shape, read in C (no Python frame: the tape, the ops and the optimizers ask for
    # shapes on every call)
    shape_of = staticmethod(operator.attrgetter("shape"))  # type: ignore[assignment]
    ndim_of = staticmethod(operator.attrgetter("ndim"))  # type: ignore[assignment]

    def compile(self, fn: Callable[..., Any], static_argnums: tuple[int, ...] = ()) -> Callable[..., Any]:
        return PlannedFunction(self, fn)
