"""DLPack: tensors to and from other array libraries without copying where both sides allow
(``Tensor.__dlpack__`` / ``__dlpack_device__`` call these; ``tp.from_dlpack``). The backend does
the work (``Backend.to_dlpack``, ``dlpack_device``, ``from_dlpack``)."""

from __future__ import annotations

from typing import Any

from tensorplug.backends.devices import on_device
from tensorplug.backends.lifecycle import active_backend, start_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import state
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, DLPackError, TensorplugError
from tensorplug.kernels.dispatcher import wrap

__all__ = ["from_dlpack"]


def _version(value: Any, op: str, name: str) -> tuple[int, int] | None:
    if value is None:
        return None
    if (not isinstance(value, tuple) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ArgumentError(f"{op}: {name} must be None or a tuple of two ints, got {value!r}.")
    return (int(value[0]), int(value[1]))


def _copy_flag(copy: Any, op: str) -> bool | None:
    return None if copy is None else valid.flag(copy, op, "copy")


def to_dlpack(x: Tensor, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any:
    """``x.__dlpack__(...)``: a capsule from x's backend, refusals as DLPackError."""
    op = "__dlpack__"
    max_version = _version(max_version, op, "max_version")
    dl_device = _version(dl_device, op, "dl_device")
    copy = _copy_flag(copy, op)
    x._host_check(op)
    try:
        return x._backend.to_dlpack(x._data, stream=stream, max_version=max_version,
                                    dl_device=dl_device, copy=copy)
    except TensorplugError:
        raise
    except (BufferError, RuntimeError, ValueError, TypeError) as exc:
        raise DLPackError(f"{op}: backend '{x.backend}' cannot export this tensor (shape {x.shape}, "
                          f"dtype {x.dtype.name}) with stream={stream!r}, max_version={max_version}, "
                          f"dl_device={dl_device}, copy={copy}: {exc}") from exc


def dlpack_device(x: Tensor) -> tuple[int, int]:
    """``x.__dlpack_device__()``: (device type, device id) as DLPack numbers them."""
    return x._backend.dlpack_device(x._data)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None,
                backend: str | None = None) -> Tensor:
    """A tensor of the active backend (or `backend`) holding the values of `x`, any object with
    ``__dlpack__`` (a numpy or jax array, a Tensor): it shares x's memory where the backend can
    (do not write to x afterwards), unless `copy` is True; `copy` False refuses to copy
    (DLPackError). `device`: place the result there (``tp.device_put``)."""
    op = "from_dlpack"
    copy = _copy_flag(copy, op)
    target = (start_backend(valid.backend_name(backend, op)) if backend is not None
              else (state.backend or active_backend()))
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        raise ArgumentError(f"{op}: x must implement the DLPack protocol (__dlpack__ and "
                            f"__dlpack_device__), got {type(x).__name__}; use tp.asarray for "
                            "other data.")
    try:
        native = target.from_dlpack(x, copy=copy)
    except TensorplugError:
        raise
    except (BufferError, RuntimeError, ValueError, TypeError, AttributeError) as exc:
        fix = ("Pass copy=None (copies where needed) or convert with tp.asarray." if copy is False
               else "Convert with tp.asarray instead.")
        raise DLPackError(f"{op}: backend '{target.name}' cannot import a {type(x).__name__} with "
                          f"copy={copy}: {type(exc).__name__}: {str(exc).rstrip('.')}. {fix}") from exc
    out = wrap(native, target, target.dtype_of(native))  # an unsupported dtype: DTypeError
    return on_device(out, device, op)
