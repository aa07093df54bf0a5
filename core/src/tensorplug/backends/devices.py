"""Devices: where a backend keeps its arrays. ``tp.device_put`` places tensors (on a device, or
sharded over several, as the backend allows), ``tp.devices`` lists a backend's devices and
``tp.set_default_device`` chooses where a backend creates arrays. Each asks the backend object;
the core knows no device type itself.
"""

from __future__ import annotations

from typing import Any

from tensorplug.backends.lifecycle import active_backend, start_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import state
from tensorplug.core.tensor import Tensor
from tensorplug.errors import DeviceError
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.run import wrap
from tensorplug.transforms.autodiff.tape import record_custom
from tensorplug.tree_util import tree_flatten, tree_unflatten

__all__ = ["device_put", "devices", "set_default_device", "on_device"]


def device_put(x: Any, where: Any) -> Any:
    """`x` (a tensor, or nested lists, tuples and dicts of them) placed on `where`: a device
    name from ``tp.devices()`` such as ``'cpu:0'``, or an object of the tensor's backend (on
    jax, a ``jax.Device`` or a ``jax.sharding.Sharding``). Returns new tensors (a Variable is
    placed with ``v.assign(tp.device_put(v, where))``); differentiable (the identity)."""
    leaves, structure = tree_flatten(x)
    return tree_unflatten(structure, [_put(leaf if isinstance(leaf, Tensor) else asarray(leaf), where)
                                       for leaf in leaves])


def _put(t: Tensor, where: Any) -> Tensor:
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
    return _put(t, device)
