"""Devices: where a backend keeps its arrays. ``put`` places a tensor (on a device, or sharded
over several, as the backend allows; ``tp.device_put`` places trees of them), ``tp.devices``
lists a backend's devices and ``tp.set_default_device`` chooses where a backend creates arrays.
Each asks the backend object; the core knows no device type itself.
"""

from __future__ import annotations

from typing import Any

from tensorplug.backends.lifecycle import active_backend, start_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import record_custom, state
from tensorplug.core.tensor import Tensor
from tensorplug.errors import DeviceError
from tensorplug.kernels.dispatcher import wrap

__all__ = ["devices", "set_default_device", "on_device", "put"]


def put(t: Tensor, where: Any) -> Tensor:
    """`t` on `where` (a device or an object of its backend), recorded as the identity for autodiff."""
    out = wrap(t._backend.device_put(t._data, where), t._backend, t._dtype)
    if state.tapes:  # the identity for autodiff
        record_custom("DevicePut", (t,), (out,), lambda dy: (dy,))
    return out


def devices(backend: str | None = None) -> list[str]:
    """The devices of `backend` (default: the active one), by name."""
    return (start_backend(valid.backend_name(backend, "devices")) if backend is not None
            else active_backend()).devices()


def set_default_device(where: Any, backend: str | None = None) -> None:
    """Make `backend` (default: the active one) create its arrays on `where` from now on;
    tensors that exist stay where they are."""
    (start_backend(valid.backend_name(backend, "set_default_device")) if backend is not None
     else active_backend()).set_default_device(where)


def on_device(t: Tensor, device: Any, op: str) -> Tensor:
    """`t` on `device` (the ``device=`` argument of creation functions): unchanged for None or
    the device it is on, else ``device_put`` (a DeviceError names the backend's devices)."""
    if device is None:
        return t
    if isinstance(device, str) and device == t.device:
        return t
    if isinstance(device, (bool, int, float, complex, Tensor, list, tuple, dict)):
        raise DeviceError(f"{op}: device must be a device of backend '{t.backend}' such as "
                          f"{t._backend.devices()[0]!r} (see tp.devices()), got {device!r}.")
    return put(t, device)
