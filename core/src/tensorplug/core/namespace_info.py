"""The Array API standard's inspection namespace: ``tp.__array_namespace_info__()`` answers
which devices, dtypes and capabilities the active backend (or the named device's) offers."""

from __future__ import annotations

from typing import Any

from tensorplug.backends.lifecycle import Backend, active_backend
from tensorplug.core.dtype_functions import isdtype
from tensorplug.dtypes import STANDARD_DTYPES, DType, default_complex, default_float, default_int
from tensorplug.errors import DeviceError, DTypeError

__all__ = ["Info", "__array_namespace_info__"]

_DTYPE_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                "complex floating", "numeric")


class Info:
    """What ``__array_namespace_info__()`` returns: ``capabilities``, ``default_device``,
    ``default_dtypes``, ``devices`` and ``dtypes``, as the standard names them."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes (eagerly, on every backend; under
        ``tp.jit`` a backend may refuse them) and the backend's maximum rank."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": self._backend.max_ndim}

    def default_device(self) -> str:
        """The device the backend creates arrays on."""
        return self._backend.default_device()

    def devices(self) -> tuple[str, ...]:
        """The backend's devices, by name (a tuple, as the standard says since 2025.12)."""
        return tuple(self._backend.devices())

    def _check_device(self, device: Any) -> None:
        if device is not None and device not in self._backend.devices():
            raise DeviceError(f"Backend '{self._backend.name}' has no device {device!r}; its devices "
                              f"are {self._backend.devices()}.")

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """The default dtype of each kind (the same on every device)."""
        self._check_device(device)
        return {"real floating": default_float, "complex floating": default_complex,
                "integral": default_int, "indexing": default_int}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, DType]:
        """The standard's dtypes of `kind` (a kind name, a dtype or a tuple of them; all if None)
        that the backend holds, by name. tensorplug's float16 and bfloat16 are not listed, as
        numpy leaves out its own."""
        self._check_device(device)
        if kind is not None and not isinstance(kind, (str, DType, tuple)):
            raise DTypeError(f"dtypes: kind must be one of {list(_DTYPE_KINDS)}, a dtype or a tuple "
                             f"of them, got {kind!r}.")
        held = self._backend.dtypes
        return {d.name: d for d in STANDARD_DTYPES
                if (held is None or d in held) and (kind is None or isdtype(d, kind))}


def __array_namespace_info__() -> Info:  # noqa: N807  (the standard's name)
    """The inspection namespace of the active backend."""
    return Info(active_backend())
