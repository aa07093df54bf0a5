"""The dtypes a backend holds: what it declares (``BackendConfig.dtypes``, carried by the
started instance as ``Backend.dtypes``), the nearest dtype it holds to one it does not, and the
check conversions make (``tp.asarray``, creation ops with ``dtype=``, ``astype``, tensors moved
from another backend), which raises a ``DTypeError`` naming the backend, the dtype and the
nearest one it holds. A backend that declares nothing (``None``) is not checked: its own
``from_numpy`` refuses what it cannot hold."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.dtypes import ALL_DTYPES, DType
from tensorplug.errors import DTypeError, RegistrationError

__all__ = ["nearest_dtype", "check_held", "declared_dtypes", "unheld_message", "describe_dtypes"]

_INTEGER_KINDS = ("int", "uint")


def declared_dtypes(dtypes: Iterable[DType] | DType | None, where: str) -> frozenset[DType] | None:
    """`dtypes` as a frozenset of tensorplug dtypes (None stays None), or RegistrationError naming
    `where` (a BackendConfig or KernelConfig) and what to pass."""
    if dtypes is None:
        return None
    given = (dtypes,) if isinstance(dtypes, DType) else tuple(dtypes)
    wrong = [d for d in given if not isinstance(d, DType)]
    if wrong or not given:
        raise RegistrationError(f"{where}: dtypes must be tensorplug dtypes (tp.float32, ...), got "
                         f"{list(given)!r}; e.g. dtypes=(tp.float32, tp.int32), or "
                         "tensorplug.dtypes.ALL_DTYPES for all of them, or None (undeclared).")
    return frozenset(given)


def _ranked(dtype: DType, held: Collection[DType], kind: str) -> list[DType]:
    """The held dtypes of `kind`: the same size first, then smaller ones (largest first), then
    larger ones (smallest first)."""
    same = [d for d in held if d.kind == kind and d is not dtype]
    size = dtype.itemsize
    return (sorted((d for d in same if d.itemsize == size), key=lambda d: d.name)
            + sorted((d for d in same if d.itemsize < size), key=lambda d: -d.itemsize)
            + sorted((d for d in same if d.itemsize > size), key=lambda d: d.itemsize))


def nearest_dtype(dtype: DType, held: Collection[DType]) -> DType | None:
    """The dtype of `held` nearest to `dtype`: `dtype` itself if held; for an integer dtype, the
    smallest held integer dtype that holds every value of it (uint8 -> int16, uint16 -> int32;
    of its own kind first at a size), else the held integer dtype of the widest range (uint64
    -> int64); for the others, of the same kind, the same size, then the next smaller, then the
    next larger (float64 -> float32, float16 -> float32); else None."""
    if dtype in held:
        return dtype
    if dtype.kind in _INTEGER_KINDS:
        integers = [d for d in held if d.kind in _INTEGER_KINDS]
        if integers:
            low, high = _range(dtype)
            lossless = [d for d in integers if _range(d)[0] <= low and _range(d)[1] >= high]
            if lossless:
                return min(lossless, key=lambda d: (d.itemsize, d.kind != dtype.kind))
            return max(integers, key=lambda d: (_range(d)[1], d.kind == dtype.kind))
        return None
    ranked = _ranked(dtype, held, dtype.kind)
    return ranked[0] if ranked else None


def _range(dtype: DType) -> tuple[int, int]:
    info = np.iinfo(dtype.numpy)
    return int(info.min), int(info.max)


def unheld_message(backend: str, dtype: DType, held: Collection[DType], op: str) -> str:
    """The message for `dtype` that backend `backend`, holding `held`, cannot hold."""
    near = nearest_dtype(dtype, held)
    names = ", ".join(d.name for d in ALL_DTYPES if d in held)
    fix = (f"cast to the nearest dtype it holds, {near.name} (e.g. x.astype(tp.{near.name}) or "
           f"dtype=tp.{near.name})" if near is not None else "cast to one of those")
    return (f"{op}: backend '{backend}' cannot hold {dtype.name}; it holds {names}. Either "
            f"{fix}, or use a backend that holds {dtype.name} (tp.backend_scope(...)).")


def check_held(backend: Backend, dtype: DType, op: str) -> None:
    """Raise DTypeError if `backend` declares its dtypes and `dtype` is not one of them
    (naming `op`, the backend, the dtype and the nearest dtype it holds)."""
    held = backend.dtypes
    if held is not None and dtype not in held:
        raise DTypeError(unheld_message(backend.name, dtype, held, op))


def describe_dtypes(held: Collection[DType] | None) -> str:
    """The dtypes in a few words: 'all 15', their names in tensorplug's order, or 'undeclared'."""
    if held is None:
        return "undeclared"
    if set(ALL_DTYPES) <= set(held):
        return f"all {len(ALL_DTYPES)}"
    return ", ".join(d.name for d in ALL_DTYPES if d in held)
