"""The JAX backend object: native arrays are ``jax.Array`` (immutable, on a device), or JAX
tracers while ``tp.jit`` traces a function.

Devices: arrays go to jax's default device unless the backend was told otherwise
(``TENSORPLUG_JAX_DEVICE=gpu:1`` when it starts, or ``tp.set_default_device("cpu:1",
backend="jax")``); ``tp.device_put`` places tensors on a device or a ``jax.sharding.Sharding``.
Every call into jax runs in the scope of ``_scope`` (64-bit types on, the chosen device).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from jax import export as jax_export

from tensorplug.dtypes import DType, from_numpy_dtype
from tensorplug.errors import DeviceError
from tensorplug.extend import Backend, tracing
from tensorplug_jax._scope import (
    SCOPED,
    TRACER_ERRORS,
    calling,
    enter,
    leave,
    scoped,
    scoped_call,
    traced_error,
)
from tensorplug_jax.kernels._jit import JaxKernel

__all__ = ["JaxBackend", "ENV_DEVICE", "device_name"]

ENV_DEVICE = "TENSORPLUG_JAX_DEVICE"
_DTYPES: dict[Any, DType] = {}
_PUT_AFTER = 256  # from_numpy: shapes and dtypes seen this often go through the compiled identity
_SEEN_LIMIT = 100_000
_Tracer = jax.core.Tracer


def device_name(device: Any) -> str:
    """'cpu:0', 'gpu:1', ...: a jax device by platform and id."""
    return f"{device.platform}:{device.id}"


def _copy(a: Any) -> Any:
    return a


# numpy -> device: jax.device_put costs ~20-120 us a call on small arrays, a compiled identity
# ~5-12 us (jax's C++ dispatch moves the argument) but compiles once per shape and dtype (~30 ms;
# ~10 ms to lower and read from jax's persistent cache): it pays for itself only after several
# hundred calls. So the identity serves the shapes and dtypes that come again and again (a
# training loop's batches), from their _PUT_AFTER-th call: at most ~5 ms more per shape than a
# compiled identity from the start, where a shape seen a few times no longer costs a compilation
# (shared by all backend instances)
_put = jax.jit(_copy)
_seen: dict[tuple[Any, Any], int] = {}
_scalars: dict[tuple[Any, ...], Any] = {}  # 0-d arrays by dtype, bits and device
_SCALARS_LIMIT = 4096


def _device_put_copy(array: np.ndarray) -> Any:
    # jax.device_put may share the numpy array's memory on the CPU: give it a copy of its own
    return jax.device_put(np.array(array, copy=True))


class JaxBackend(Backend):
    """Holds ``jax.Array`` values on a device (jax's default one unless told otherwise)."""

    def __init__(self, device: Any = None) -> None:
        self._default = jax.devices()[0]
        self.device: Any = self._default
        self.pinned_device: Any = None  # set when `device` is not jax's default device
        self.direct_kernels = True  # the engine may call kernels' jitted functions directly
        self._adopted: dict[Any, Callable[..., Any]] = {}  # (kernel_function's wrappers, by config)
        wanted = device if device is not None else os.environ.get(ENV_DEVICE)
        if wanted:
            self.set_default_device(wanted)

    # -- kernels others registered -------------------------------------------------------------
    def kernel_function(self, config: Any) -> Callable[..., Any]:
        """A kernel another plugin (or user code) registered for jax runs in the backend's scope
        too (64-bit types on, the pinned device), as the backend's own do: ``x + 4.0`` on a
        float64 input stays float64. Wrapped once per config."""
        func = config.kernel_func
        if func in SCOPED:
            return func
        wrapped = self._adopted.get(config)
        if wrapped is None:
            name = config.kernel_name
            wrapped = self._adopted[config] = scoped(
                JaxKernel(func), lambda backend: f"Kernel '{name}' on backend '{backend.name}'")
        return wrapped

    # -- host data --------------------------------------------------------------------------
    def from_numpy(self, array: np.ndarray) -> Any:
        scalar = None
        if not array.ndim:  # Python scalars in ops (x * 2.0): immutable, so shared
            scalar = (array.dtype, array.tobytes(), self.pinned_device)  # the bits: -0.0 is not 0.0
            hit = _scalars.get(scalar)
            if hit is not None:
                return hit
        key = (array.shape, array.dtype)
        seen = _seen.get(key, 0)
        if seen < _PUT_AFTER:
            if len(_seen) < _SEEN_LIMIT:
                _seen[key] = seen + 1
            put: Callable[[Any], Any] = _device_put_copy
        else:
            put = _put
        token = enter(self.pinned_device)
        try:
            if tracing():  # a constant: keep it concrete, not a value of the trace
                with jax.ensure_compile_time_eval():
                    out = put(array)
            else:
                out = put(array)
        finally:
            leave(token)
        if scalar is not None:
            if len(_scalars) >= _SCALARS_LIMIT:
                _scalars.clear()
            _scalars[scalar] = out
        return out

    def to_numpy(self, native: Any) -> np.ndarray:
        try:
            ready = None if isinstance(native, _Tracer) else getattr(native, "block_until_ready", None)
            if ready is not None:
                # an asynchronous computation that failed (out of memory) raises its error here;
                # reading its buffer would abort the process
                ready()
            return np.asarray(native)
        except TRACER_ERRORS as exc:
            raise traced_error(
                "Reading the values of a traced tensor (tensor.numpy(), float(), int(), bool(), "
                "printing, or moving it to another backend)", exc) from exc

    def out_of_memory(self, exc: BaseException) -> bool:
        # XLA reports it as RESOURCE_EXHAUSTED at dispatch, or (an asynchronous computation)
        # as an INTERNAL error saying so when the values are read
        return isinstance(exc, MemoryError) or "Out of memory" in str(exc) or "RESOURCE_EXHAUSTED" in str(exc)

    def is_native(self, value: Any) -> bool:
        """``jax.Array`` values, and jax's tracers while a function is traced."""
        return isinstance(value, (jax.Array, _Tracer))

    # (``native.aval``, a jax array's abstract value, is read in C++; ``.dtype`` and ``.shape``
    # are Python properties over it: these run for every kernel output and op)
    def dtype_of(self, native: Any) -> DType:
        try:
            return _DTYPES[native.aval.dtype]
        except (KeyError, AttributeError):
            dt = _DTYPES[native.dtype] = from_numpy_dtype(native.dtype)
            return dt

    def shape_of(self, native: Any) -> tuple[int, ...]:
        try:
            return native.aval.shape
        except AttributeError:
            return tuple(native.shape)

    def ndim_of(self, native: Any) -> int:
        try:  # (as shape_of: one Python frame, where the default's calls shape_of)
            return len(native.aval.shape)
        except AttributeError:
            return len(native.shape)

    # -- devices ----------------------------------------------------------------------------
    def device_of(self, native: Any) -> str:
        if isinstance(native, _Tracer):
            return "traced"
        devices = sorted(native.devices(), key=lambda d: d.id)
        return ",".join(device_name(d) for d in devices)

    def devices(self) -> list[str]:
        return [device_name(d) for d in jax.devices()]

    def default_device(self) -> str:
        return device_name(self.device)

    def _resolve(self, where: Any, sharding_ok: bool) -> Any:
        if isinstance(where, jax.Device):
            return where
        if sharding_ok and isinstance(where, jax.sharding.Sharding):
            return where
        if isinstance(where, str):
            for d in jax.devices():
                if where in (device_name(d), d.platform):
                    return d
            try:  # another platform's devices (e.g. 'cpu:0' while the default is a GPU)
                platform, _, index = where.partition(":")
                return jax.devices(platform)[int(index or 0)]
            except (RuntimeError, ValueError, IndexError):
                pass
        what = "a device name, a jax.Device or a jax.sharding.Sharding" if sharding_ok else (
            "a device name or a jax.Device")
        raise DeviceError(f"Backend 'jax' has no device {where!r}: give {what}; its devices are "
                          f"{self.devices()}.")

    def device_put(self, native: Any, where: Any) -> Any:
        target = self._resolve(where, sharding_ok=True)
        with calling(self.pinned_device):
            return jax.device_put(native, target)

    def set_default_device(self, where: Any) -> None:
        device = self._resolve(where, sharding_ok=False)
        self.device = device
        self.pinned_device = None if device == self._default else device
        self.direct_kernels = self.pinned_device is None  # a pinned device needs the scope

    def joinable(self, natives: Sequence[Any]) -> bool:
        """Each array whole on the same devices (one device, or replicated alike); numpy arrays
        go anywhere. A sharded array is not joinable: its optimizer state stays sharded like it."""
        devices = None
        for native in natives:
            sharding = getattr(native, "sharding", None)
            if sharding is None:  # a host array
                continue
            if not sharding.is_fully_replicated:
                return False
            if devices is None:
                devices = sharding.device_set
            elif sharding.device_set != devices:
                return False
        return True

    def synchronize(self, natives: Sequence[Any]) -> None:
        """Block until jax's asynchronous dispatch has computed them (for tp.profile's times)."""
        jax.block_until_ready([a for a in natives if isinstance(a, jax.Array)])

    # -- DLPack -----------------------------------------------------------------------------
    def to_dlpack(self, native: Any, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                  dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """jax's own export (zero-copy; jax gives legacy capsules, which every consumer reads)."""
        if max_version is not None and max_version[0] < 1:
            max_version = None  # (jax refuses versions below 0.5 instead of giving its legacy capsule)
        return native.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def dlpack_device(self, native: Any) -> tuple[int, int]:
        device_type, device_id = native.__dlpack_device__()
        return int(device_type), int(device_id)

    def from_dlpack(self, obj: Any, *, copy: bool | None = None) -> Any:
        """``jax.dlpack.from_dlpack``: zero-copy for buffers jax can alias (on the CPU: 64-byte
        aligned; a copy of its own for `copy` True); a producer that can only export read-only
        buffers with DLPack 1.0 flags, which jax does not read, goes through numpy (a copy,
        unless `copy` is False). `copy` False (``tp.asarray(..., copy=False)`` too) shares a
        host buffer only with the CPU device, and only where it is 64-byte aligned (XLA's
        requirement): else BufferError."""
        with calling(self.pinned_device):
            try:
                out = jax.dlpack.from_dlpack(obj, copy=copy)
                if copy is False and out.devices() != {self.device}:
                    raise BufferError(f"the array is on {sorted(map(device_name, out.devices()))} and "
                                      f"backend 'jax' places arrays on {device_name(self.device)}: "
                                      "moving it there copies it")
                # (jax 0.10 aliases a numpy array even with copy=True: copy it here)
                return jax.numpy.array(out, copy=True) if copy else out
            except BufferError:
                if copy is False:
                    raise
                return self.from_numpy(np.from_dlpack(obj))

    # -- compilation --------------------------------------------------------------------------
    serialized_format = "stablehlo"

    def serialize(self, fn: Callable[..., Any], arrays: Sequence[np.ndarray]) -> bytes:
        """`fn` as StableHLO through ``jax.export``: ``jax.export.deserialize(...).call`` runs it."""
        specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays]
        return bytes(jax_export.export(jax.jit(fn))(*specs).serialize())

    def compile(self, fn: Callable[..., Any], static_argnums: tuple[int, ...] = ()) -> Callable[..., Any]:
        """``jax.jit(fn)``, called in the backend's scope; jax's complaints about traced values
        become TracedValueError."""
        jitted = jax.jit(fn, static_argnums=static_argnums)
        return scoped_call(jitted, self,
                           "A function compiled by tp.jit on backend 'jax'")

    def __repr__(self) -> str:
        return f"<JaxBackend {self.name!r} on {device_name(self.device)}>"

