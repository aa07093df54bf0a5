"""Backends: the Backend base class, BackendConfig, and the backend registry with lazy start,
priorities and the per-thread active backend."""

from __future__ import annotations

import contextlib
import difflib
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _validate as valid
from ._state import backend_var, state
from .dtypes import DType, from_numpy_dtype
from .errors import (
    BackendNotFoundError,
    DeviceError,
    PluginError,
    TensorplugError,
    TensorplugPluginWarning,
)
from .registry import kernels as _kernels
from .runtime import current

__all__ = [
    "Backend",
    "BackendConfig",
    "register_backend",
    "unregister_backend",
    "list_backends",
    "backend_info",
    "get_backend",
    "set_backend",
    "set_default_backend",
    "backend_scope",
    "start_backend",
    "active_backend",
    "dispose_backend",
    "kernel_changed",
]

ENV_BACKEND = "TENSORPLUG_BACKEND"


class Backend:
    """A named runtime holding native arrays. Subclass it and override at least
    ``from_numpy`` and ``to_numpy``; ``name`` is set from the BackendConfig."""

    name: str = ""
    #: True when native arrays are never written and live on one device, so that the tensor
    #: made from a Python scalar (``x * 2.0``) can be made once and reused (numpy backend).
    reuses_scalars: bool = False
    #: False while the dispatcher must not call kernels' direct functions (see
    #: ``tensorplug.dispatch``): e.g. while the backend needs a setting around every kernel call.
    direct_kernels: bool = True
    #: Whether tp.jit joins a state holder's tensors of one dtype into one buffer (where
    #: ``joinable`` allows it): worth it where every array passed into or out of a compiled
    #: function costs (jax); a planned function (``tensorplug.plan``) takes arrays for free.
    packs_jit_state: bool = True
    #: The most elements one tensor may have: creation ops and shape rules refuse larger shapes
    #: (a ShapeError) before anything is allocated. The default keeps a tensor's size in bytes
    #: within int64; a backend whose library fails worse than a clean out-of-memory error on
    #: huge shapes (an abort) states a smaller limit.
    max_elements: int = 2**59
    #: The most axes one tensor may have (numpy's limit: 64).
    max_ndim: int = 64

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
        shared where the backend can, unless `copy`). Default: through numpy (a copy unless
        ``from_numpy`` keeps the array)."""
        return self.from_numpy(np.from_dlpack(obj, copy=copy))

    def from_tensor(self, tensor: Any) -> Any:
        """A native array of this backend with the values of `tensor`, a Tensor of another
        backend (default: through the host). The backend of a transform (``tp.vmap``'s)
        overrides it to take in the tensors of the backends beneath it as they are."""
        return self.from_numpy(np.asarray(tensor._backend.to_numpy(tensor._data)))

    def derived_kernel(self, kernel_name: str) -> Any:
        """The KernelConfig of a kernel this backend makes itself from the registered ones, or
        None (the default: a backend runs registered kernels only). The backend of a transform
        (``tp.vmap``'s) derives every kernel from the kernels of the backend beneath it."""
        return None

    def compile(self, fn: Callable[..., Any],
                static_argnums: tuple[int, ...] = ()) -> Callable[..., Any] | None:
        """A compiled version of `fn`, or None when this backend cannot compile (``tp.jit`` then
        runs eagerly). A backend without a compiler of its own can return
        ``tensorplug.plan.PlannedFunction(self, fn)``: a plan of `fn`'s kernel calls, replayed.

        ``tp.jit`` hands over a pure function of lists of native arrays of this backend (numpy
        arrays may stand in for them) returning nested lists of native arrays; the arguments at
        `static_argnums` are hashable Python values. The backend calls `fn` with traced arrays
        (which ``dtype_of`` and ``shape_of`` must accept) to build its computation, and may
        cache it per argument shapes and dtypes.
        """
        return None

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


@dataclass(frozen=True)
class BackendConfig:
    """A backend: its name, a zero-argument factory creating it on first use, a priority
    (the highest-priority backend that starts is the default)."""

    name: str
    factory: Callable[[], Backend]
    priority: int = 0


def _discover() -> None:
    from .plugins.manager import load_plugins  # (plugin loading sits above the backends)

    load_plugins()  # (in strict mode, raises the plugin error met before, every time)


def register_backend(config: BackendConfig, *, override: bool = False, priority: int | None = None) -> None:
    """Make `config` available under ``config.name``; TypeError if it is not a BackendConfig, and
    RegistrationError if the name is taken by another source without ``override=True``."""
    if not isinstance(config, BackendConfig):
        raise TypeError(f"register_backend takes a BackendConfig, got {type(config).__name__}")
    current().backends.add(config.name, config, override=override,
                           priority=config.priority if priority is None else priority)


def unregister_backend(name: str, source: str | None = None) -> None:
    """Remove a backend's registration; a started instance is disposed."""
    runtime = current()
    before = runtime.backends.active.get(name)
    runtime.backends.remove(name, source)
    if runtime.backends.active.get(name) is not before:  # the instance may come from the removed config
        dispose_backend(name)
    if name not in runtime.backends.active and runtime.default_backend == name:
        runtime.default_backend = None


def list_backends() -> list[str]:
    """Registered backend names, highest priority first."""
    _discover()
    return [c.name for c in sorted(current().backends.active.values(), key=lambda c: (-c.priority, c.name))]


def backend_info() -> list[dict[str, Any]]:
    """Name, priority, whether started and active, and who registered each backend."""
    _discover()
    runtime = current()
    active = state.backend.name if state.backend is not None else None
    out = []
    for name in list_backends():
        reg = runtime.backends.registration(name)
        out.append({
            "name": name,
            "priority": runtime.backends.active[name].priority,
            "started": name in runtime.instances,
            "active": name == active,
            "source": reg.source if reg else None,
        })
    return out


def _not_found(name: str) -> BackendNotFoundError:
    known = list_backends()
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return BackendNotFoundError(
        f"No backend named '{name}'; registered backends: {known or 'none'}.{hint} Install its "
        f"distribution (e.g. pip install tensorplug-backend-{name}, where one of that name "
        "exists) or check the name."
        + (" Plugin autoload is disabled (TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD)."
           if os.environ.get("TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD") else "")
    )


def start_backend(name: str) -> Backend:
    """The started instance of backend `name` (created, and its kernels registered, on first use)."""
    runtime = current()
    if name.__class__ is not str:
        valid.backend_name(name, "start_backend", "name")
    backend = runtime.instances.get(name)
    if backend is not None:
        return backend
    _discover()
    with runtime.start_lock:
        # (runtime.starting: re-entered from a hook while the backend starts)
        backend = runtime.instances.get(name) or runtime.starting.get(name)
        if backend is not None:
            return backend
        config = runtime.backends.active.get(name)
        if config is None:
            raise _not_found(name)
        try:
            backend = config.factory()
        except TensorplugError:
            raise
        except Exception as exc:
            from .plugins.manager import report_backend_failure

            report_backend_failure(name, exc)  # strict mode: a PluginError, now and at every use
            raise TensorplugError(
                f"Backend '{name}' failed to start: {type(exc).__name__}: {exc}. Check that its "
                "distribution and dependencies are installed, or choose another with "
                "tp.set_backend(...)."
            ) from exc
        if not isinstance(backend, Backend):
            raise TensorplugError(
                f"Backend '{name}': its factory returned {type(backend).__name__}, not a "
                "tensorplug Backend subclass."
            )
        backend.name = name
        runtime.starting[name] = backend
        try:
            for config_k in _kernels.kernels_for_backend(name):  # registered before the start
                if config_k.setup_func is not None:
                    config_k.setup_func(backend)
            from .plugins.manager import register_backend_kernels

            register_backend_kernels(name)  # plugins register its kernels, set up as they come
        finally:
            del runtime.starting[name]
        runtime.instances[name] = backend
        return backend


def kernel_changed(config: _kernels.KernelConfig, event: str) -> None:
    """A kernel became active ("setup") or stopped being active ("dispose") in its slot: run its
    setup or dispose function if its backend is started (or starting)."""
    runtime = current()
    backend = runtime.instances.get(config.backend_name) or runtime.starting.get(config.backend_name)
    if backend is None:
        return
    func = config.setup_func if event == "setup" else config.dispose_func
    if func is not None:
        func(backend)


def dispose_backend(name: str) -> None:
    """Stop a started backend: dispose its kernels and the instance. It restarts on next use."""
    backend = current().instances.pop(name, None)
    if backend is None:
        return
    for config in _kernels.kernels_for_backend(name):
        if config.dispose_func is not None:
            config.dispose_func(backend)
    backend.dispose()
    if state.backend is backend:
        state.backend = None


def _default_backend() -> Backend:
    runtime = current()
    if runtime.default_backend is not None:
        return start_backend(runtime.default_backend)
    wanted = os.environ.get(ENV_BACKEND)
    if wanted:
        runtime.default_backend = wanted
        return start_backend(wanted)
    names = list_backends()
    if not names:
        raise BackendNotFoundError(
            "No tensorplug backend is installed. Install one, e.g. "
            "`pip install tensorplug-backend-numpy`, or register one by hand with "
            "tensorplug.extend.register_backend(BackendConfig(...))."
            + (" Plugin autoload is disabled (TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD)."
               if os.environ.get("TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD") else "")
        )
    errors = []
    for name in names:
        try:
            backend = start_backend(name)
        except PluginError:
            raise  # strict mode: a plugin problem is an error, not a reason to try another backend
        except TensorplugError as exc:
            errors.append(f"{name}: {exc}")
            warnings.warn(f"tensorplug: backend '{name}' could not start, trying the next: {exc}",
                          TensorplugPluginWarning, stacklevel=3)
            continue
        runtime.default_backend = name
        return backend
    raise BackendNotFoundError("No backend could start: " + "; ".join(errors))


def active_backend() -> Backend:
    """The active backend of this thread (its default on first use)."""
    backend = backend_var.get()
    if backend is None:
        backend = _default_backend()
        backend_var.set(backend)
    return backend


def get_backend() -> str:
    """The name of this thread's active backend."""
    return active_backend().name


def set_backend(name: str) -> Backend:
    """Make `name` the active backend of the calling thread (other threads keep theirs)."""
    backend = start_backend(valid.backend_name(name, "set_backend", "name"))
    state.backend = backend
    return backend


def set_default_backend(name: str | None) -> None:
    """The backend that threads use until they call set_backend (None: back to priorities)."""
    if name is not None:
        start_backend(valid.backend_name(name, "set_default_backend", "name"))
    current().default_backend = name


@contextlib.contextmanager
def backend_scope(name: str) -> Iterator[Backend]:
    """Make `name` the active backend of this thread inside the block."""
    previous = state.backend
    backend = start_backend(valid.backend_name(name, "backend_scope", "name"))
    state.backend = backend
    try:
        yield backend
    finally:
        state.backend = previous
