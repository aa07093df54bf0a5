"""The Backend base class: the contract a backend implements (native arrays in and out, dtypes
and shapes, devices, DLPack, compiling, and the seams tp.vmap's batching backend uses).
``tensorplug.registry.backends`` holds the registry of backends, ``tensorplug.backends.lifecycle``
their lifecycle, and re-exports this class."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, from_numpy_dtype
from tensorplug.errors import DeviceError

__all__ = ["Backend"]


class Backend:
    """A named runtime holding native arrays. Subclass it and override at least
    ``from_numpy`` and ``to_numpy``; ``name`` is set from the BackendConfig."""

    name: str = ""
    #: True when native arrays are never written and live on one device, so that the tensor
    #: made from a Python scalar (``x * 2.0``) can be made once and reused (numpy backend).
    reuses_scalars: bool = False
    #: False while the dispatcher must not call kernels' direct functions (see
    #: ``tensorplug.kernels.dispatcher``): e.g. while the backend needs a setting around every kernel call.
    direct_kernels: bool = True
    #: Whether tp.jit joins a state holder's tensors of one dtype into one buffer (where
    #: ``joinable`` allows it): worth it where every array passed into or out of a compiled
    #: function costs (jax); a planned function (``tensorplug.transforms.jit.planner``) takes arrays for free.
    packs_jit_state: bool = True
    #: True for the backend of a transform (``tp.vmap``'s level), whose arrays hold values of
    #: the backend beneath: tp.jit runs a function called there as it is, op by op, keying
    #: and caching nothing for it.
    transform: bool = False
    #: The most elements one tensor may have: creation ops and shape rules refuse larger shapes
    #: (a ShapeError) before anything is allocated. The default keeps a tensor's size in bytes
    #: within int64; a backend whose library fails worse than a clean out-of-memory error on
    #: huge shapes (an abort) states a smaller limit.
    max_elements: int = 2**59
    #: The most axes one tensor may have (numpy's limit: 64).
    max_ndim: int = 64
    #: The dtypes this backend can hold, or None (undeclared: its ``from_numpy`` refuses what it
    #: cannot hold). Set from ``BackendConfig.dtypes`` when the backend starts; conversions onto
    #: it (``tp.asarray``, creation ops' ``dtype=``, ``astype``) refuse other dtypes with a
    #: DTypeError naming the nearest one it holds (``tensorplug.backends.held_dtypes``).
    dtypes: frozenset[DType] | None = None
    #: The portable format ``serialize`` writes (the jax backend: "stablehlo"), or None when the
    #: backend cannot serialize a function (``tp.export.stablehlo`` asks for one that can).
    serialized_format: str | None = None

    def from_numpy(self, array: np.ndarray) -> Any:
        """A native array holding a copy of `array` (whose dtype is a supported one)."""
        raise NotImplementedError

    def to_numpy(self, native: Any) -> np.ndarray:
        """A numpy array with the values of `native` (may be a read-only view)."""
        raise NotImplementedError

    def dtype_of(self, native: Any) -> DType:
        """The tensorplug dtype of a native array (default: from its numpy-style .dtype)."""
        return from_numpy_dtype(native.dtype)

    def shape_of(self, native: Any) -> tuple[int, ...]:
        """The shape of a native array (default: its numpy-style ``.shape``, as a tuple)."""
        return tuple(native.shape)

    def ndim_of(self, native: Any) -> int:
        """The number of axes of a native array (default: the length of ``shape_of``'s shape;
        a backend whose arrays say it for less, e.g. an ``.ndim`` that builds no shape, says so)."""
        return len(self.shape_of(native))

    def is_native(self, value: Any) -> bool:
        """Whether `value` is a native array of this backend (what its kernels must return;
        ``tensorplug.kernels.call_checks`` holds them to it). Default: any value ``dtype_of`` and
        ``shape_of`` accept; a backend names its own types, so that another library's array,
        or a bare Python number, is caught."""
        try:
            self.dtype_of(value)
            self.shape_of(value)
        except Exception:
            return False
        return True

    def device_of(self, native: Any) -> str:
        """Where `native` lives, e.g. 'cpu' or 'gpu:1' (several devices for a sharded array)."""
        return "cpu"

    def devices(self) -> list[str]:
        """The devices this backend can place arrays on, by the names ``device_of`` uses."""
        return ["cpu"]

    def default_device(self) -> str:
        """The device this backend creates arrays on (default: the first of ``devices()``)."""
        return self.devices()[0]

    def device_put(self, native: Any, where: Any) -> Any:
        """`native` placed on `where`: a name from ``devices()``, or an object of the backend's
        own (a device, a sharding). Backends with one device accept only its name."""
        if isinstance(where, str) and where in self.devices():
            return native
        raise DeviceError(f"Backend '{self.name}' has no device {where!r}; its devices are "
                          f"{self.devices()}.")

    def set_default_device(self, where: Any) -> None:
        """Place the arrays this backend creates from now on on `where` (as ``device_put``)."""
        if not (isinstance(where, str) and where in self.devices()):
            raise DeviceError(f"Backend '{self.name}' has no device {where!r}; its devices are "
                              f"{self.devices()}.")

    # -- DLPack (``Tensor.__dlpack__``, ``tp.from_dlpack``) ------------------------------------
    def to_dlpack(self, native: Any, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                  dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """A DLPack capsule of `native` for a consumer (the standard's ``__dlpack__``
        arguments). Default: the values on the host (``to_numpy``), exported by numpy: zero-copy
        where ``to_numpy`` shares memory, read-only where the consumer reads DLPack 1.0 flags,
        else a copy (a BufferError if `copy` is False)."""
        host = self.to_numpy(native)
        legacy = max_version is None or max_version[0] < 1
        if legacy and not host.flags.writeable:  # a legacy capsule cannot say read-only
            if copy is False:
                raise BufferError("this tensor's buffer is read-only and the consumer asked for a "
                                  "legacy (pre-1.0) DLPack capsule, which cannot say so: pass "
                                  "copy=None or True, or use a consumer of DLPack 1.0.")
            host, copy = np.array(host, copy=True), None
        return host.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def dlpack_device(self, native: Any) -> tuple[int, int]:
        """``(device_type, device_id)`` of `native` as DLPack numbers them (default: the CPU, (1, 0))."""
        return (1, 0)

    def from_dlpack(self, obj: Any, *, copy: bool | None = None) -> Any:
        """A native array of this backend from `obj`, an object with ``__dlpack__`` (the values
        shared where the backend can, unless `copy`; `copy` False: shared or BufferError).
        ``tp.asarray(..., copy=False)`` comes here too. Default: through numpy and
        ``from_numpy``, which copies, so `copy` False raises."""
        if copy is False:
            raise BufferError(f"backend '{self.name}' takes host data through from_numpy, which "
                              "copies: it cannot share memory (its author can override "
                              "Backend.from_dlpack to share)")
        return self.from_numpy(np.from_dlpack(obj, copy=copy))

    def from_tensor(self, tensor: Any) -> Any:
        """A native array of this backend with the values of `tensor`, a Tensor of another
        backend (default: through the host). The backend of a transform (``tp.vmap``'s)
        overrides it to take in the tensors of the backends beneath it as they are."""
        return self.from_numpy(np.asarray(tensor._backend.to_numpy(tensor._data)))

    def kernel_function(self, config: Any) -> Callable[..., Any]:
        """The function this backend runs for `config`, a KernelConfig registered for it by
        anyone (its own plugin, another plugin, user code). Default: ``config.kernel_func``. A
        backend whose calls need a setting around them (jax's 64-bit scope) wraps the kernels
        others registered, so that theirs compute as its own do; the dispatcher then runs the
        wrapped function (the config's direct call, for its dtypes, as it is)."""
        return config.kernel_func

    def derived_kernel(self, kernel_name: str) -> Any:
        """The KernelConfig of a kernel this backend makes itself from the registered ones, or
        None (the default: a backend runs registered kernels only). The backend of a transform
        (``tp.vmap``'s) derives every kernel from the kernels of the backend beneath it."""
        return None

    def compile(self, fn: Callable[..., Any],
                static_argnums: tuple[int, ...] = ()) -> Callable[..., Any] | None:
        """A compiled version of `fn`, or None when this backend cannot compile (``tp.jit`` then
        runs eagerly). A backend without a compiler of its own can return
        ``tensorplug.extend.PlannedFunction(self, fn)``: a plan of `fn`'s kernel calls, replayed.

        ``tp.jit`` hands over a pure function of lists of native arrays of this backend (numpy
        arrays may stand in for them) returning nested lists of native arrays; the arguments at
        `static_argnums` are hashable Python values. The backend calls `fn` with traced arrays
        (which ``dtype_of`` and ``shape_of`` must accept) to build its computation, and may
        cache it per argument shapes and dtypes.
        """
        return None

    def serialize(self, fn: Callable[..., Any], arrays: Sequence[np.ndarray]) -> bytes:
        """`fn` (a pure function of native arrays of this backend, returning one or a tuple of
        them) traced on arrays of the shapes and dtypes of `arrays` and written in
        ``serialized_format``, for a runtime outside Python. Only a backend that sets
        ``serialized_format`` implements it."""
        raise NotImplementedError(f"backend '{self.name}' serializes no function (serialized_format is None)")

    def joinable(self, natives: Sequence[Any]) -> bool:
        """Whether these native arrays (of this backend, or numpy arrays) can be joined into one
        buffer without moving data between devices: tp.jit then packs a state holder's tensors
        of one dtype (an optimizer's slots) into one buffer, fewer arrays per compiled call. A
        backend whose arrays may be sharded over several devices says False for arrays laid out
        differently, so that state sharded like its parameters stays so."""
        return True

    def synchronize(self, natives: Sequence[Any]) -> None:
        """Wait until these native arrays are computed. A backend that computes asynchronously
        (jax) blocks here; ``tp.profile`` calls it before it reads the clock. Default: nothing."""

    def out_of_memory(self, exc: BaseException) -> bool:
        """Whether `exc`, raised by a kernel or ``to_numpy``, means the backend ran out of
        memory (tensorplug then raises OutOfMemoryError naming the kernel and the shapes)."""
        return isinstance(exc, MemoryError)

    def dispose(self) -> None:
        """Release what the backend holds; called by dispose_backend."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} backend {self.name!r}>"
