"""A second backend for tests, registered by hand: numpy underneath, but its native arrays are
``ToyArray`` boxes, so a numpy kernel handed toy data (or a toy kernel handed numpy data) fails
loudly instead of passing by accident. Its kernels are the numpy backend's kernel functions,
wrapped to unbox and rebox, and each call is counted on the backend instance."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, from_numpy_dtype
from tensorplug.extend import (
    Backend,
    BackendConfig,
    KernelConfig,
    kernels_for_backend,
    register_backend,
    register_kernel,
    start_backend,
)
from tensorplug.registry._slots import registering_as
from tensorplug.registry.generic_kernels import GENERIC_KERNELS

__all__ = ["TOY_SOURCE", "ToyArray", "ToyBackend", "install_toy_backend", "toy_kernel"]

TOY_SOURCE = "toy-backend (tests)"


class ToyArray:
    """A toy backend's native array: a numpy array in a box."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        if not isinstance(array, np.ndarray):
            array = np.asarray(array)
        self.array = array

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def dtype(self) -> np.dtype:
        return self.array.dtype


class ToyBackend(Backend):
    """Numpy in boxes; counts the kernels run on it."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.disposed = False

    def from_numpy(self, array: np.ndarray) -> ToyArray:
        return ToyArray(np.array(array, copy=True))

    def to_numpy(self, native: Any) -> np.ndarray:
        if not isinstance(native, ToyArray):
            raise TypeError(f"toy backend got a {type(native).__name__}, not a ToyArray")
        view = native.array.view()
        view.flags.writeable = False
        return view

    def dtype_of(self, native: Any) -> DType:
        if not isinstance(native, ToyArray):
            raise TypeError(f"toy backend got a {type(native).__name__}, not a ToyArray")
        return from_numpy_dtype(native.array.dtype)

    def shape_of(self, native: Any) -> tuple[int, ...]:
        return tuple(native.array.shape)

    def dispose(self) -> None:
        self.disposed = True


def toy_kernel(name: str, numpy_func: Any) -> Any:
    """A toy kernel from a numpy kernel function: unbox the inputs, rebox the outputs."""

    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        arrays = []
        for a in inputs:
            if not isinstance(a, ToyArray):
                raise TypeError(f"toy kernel {name} got a {type(a).__name__}, not a ToyArray")
            arrays.append(a.array)
        backend.calls[name] += 1
        out = numpy_func(tuple(arrays), attrs, backend)
        if isinstance(out, tuple):
            return tuple(ToyArray(o) for o in out)
        return ToyArray(out)

    kernel.__name__ = f"toy_{name}"
    return kernel


def install_toy_backend(name: str = "toy", priority: int = -1, *,
                        without: tuple[str, ...] = ()) -> BackendConfig:
    """Register backend `name` (a ToyBackend) with the numpy backend's kernels, except those
    named in `without` and the core's generic ones (control flow), which it gets, as every backend
    does, when it starts. Call inside isolated registries (the test conftest does that)."""
    start_backend("numpy")  # the numpy plugin registers its kernels when its backend starts
    config = BackendConfig(name, ToyBackend, priority=priority)
    with registering_as(TOY_SOURCE):
        register_backend(config)
        for k in kernels_for_backend("numpy"):
            if k.kernel_name not in without and k.kernel_name not in GENERIC_KERNELS:
                register_kernel(KernelConfig(k.kernel_name, name, toy_kernel(k.kernel_name, k.kernel_func)))
    return config
