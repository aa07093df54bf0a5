"""Argument conversion for ops: array-likes to Tensors on the active backend, dtype
promotion (weak Python scalars), axis normalization."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorplug.backends.devices import on_device, put
from tensorplug.backends.held_dtypes import check_held
from tensorplug.backends.lifecycle import Backend, active_backend, start_backend
from tensorplug.core import validate as valid
from tensorplug.core.context import backend_var
from tensorplug.core.tensor import Tensor
from tensorplug.core.validate import shown
from tensorplug.dtypes import (
    DType,
    default_complex,
    default_float,
    default_int,
    from_numpy_dtype,
    result_type,
    scalar_dtype,
)
from tensorplug.errors import CopyError, DTypeError, KernelNotFoundError, TensorplugError
from tensorplug.families.elementwise.spec import cast_target
from tensorplug.kernels.dispatcher import Dispatcher, wrap
from tensorplug.kernels.dispatcher import to_backend as to_native
from tensorplug.tree_util import tree_flatten, tree_unflatten

__all__ = ["asarray", "convert_pair", "to_float", "caller", "is_tensor", "to_backend", "device_put"]

_SCALARS = (bool, int, float, complex)


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def caller(kernel_name: str, attrs: dict[str, Any] | None = None) -> Dispatcher:
    """The dispatcher of a kernel for ops (`attrs`: constant, complete attributes)."""
    return Dispatcher(kernel_name, attrs)


_cast = None  # set below once Cast's caller exists


def _is_array(obj: Any) -> bool:
    """Whether `obj` is another library's array (jax, torch, cupy...): its dtype is kept, where
    Python numbers and sequences take the default dtypes."""
    kind = type(obj)
    return hasattr(kind, "__array__") or hasattr(kind, "__dlpack__")


def _host_array(obj: Any, dtype: DType | None) -> np.ndarray:
    try:
        if dtype is not None:
            return np.asarray(obj, dtype=dtype.numpy)
        if isinstance(obj, (np.ndarray, np.generic)) or _is_array(obj):
            arr = np.asarray(obj)
            # a non-native byte order (a big-endian file's data): the same dtype, native
            return arr if arr.dtype.isnative else arr.astype(arr.dtype.newbyteorder("="))
        arr = np.asarray(obj)
    except OverflowError as exc:  # a Python int out of the dtype's range
        target = dtype.name if dtype is not None else "a tensorplug dtype"
        raise DTypeError(f"asarray: {shown(obj)} does not fit in {target} ({exc}); pass values in "
                         "range or choose a wider dtype.") from exc
    except (TypeError, ValueError, RuntimeError) as exc:  # (RuntimeError: a torch tensor that
        # requires grad, or on a GPU, refuses numpy, saying why and how to fix it)
        target = f" to {dtype.name}" if dtype is not None else ""
        raise DTypeError(f"asarray: cannot convert {type(obj).__name__}{target}: {exc}. Pass numbers, "
                         "nested sequences of numbers, a numpy array or a Tensor.") from exc
    if arr.dtype.kind == "f":  # Python floats: the default float dtype
        return arr.astype(default_float.numpy)
    if arr.dtype.kind in "iu":
        # Python ints past int64's range come as uint64: the default int would wrap them
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(default_int.numpy).max:
            info = np.iinfo(default_int.numpy)
            raise DTypeError(f"asarray: the int {arr.max()} is past the range of {default_int.name}, "
                             f"the dtype of Python ints ({info.min}..{info.max}); pass "
                             "dtype=tp.uint64 or a numpy array of dtype uint64.")
        return arr.astype(default_int.numpy)
    if arr.dtype.kind == "c":  # Python complex numbers: the default complex dtype
        return arr.astype(default_complex.numpy)
    if arr.dtype.kind == "O":  # ints past uint64's range, None, other objects
        raise DTypeError(f"asarray: cannot convert {shown(obj)}: numpy holds it only as Python "
                         "objects (an int past the int64/uint64 range, None or a non-number); pass "
                         "numbers that fit a tensorplug dtype.")
    return arr


def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            backend: str | None = None) -> Tensor:
    """A Tensor from `obj` (Tensor, numpy array, object with ``__dlpack__``, nested sequence,
    scalar) on the active backend (or `backend`, tensorplug's extension), on `device` if given
    (a name from ``tp.devices()``). Python floats become float32, Python ints int64, Python
    complex numbers complex64; arrays (numpy's, jax's, torch's...) keep their dtype.

    `copy` as the Array API says: True always copies; None copies only where needed (a numpy
    array is copied, so that writing it later leaves the tensor as it was; a Tensor is taken as
    it is); False never copies: the tensor shares the caller's buffer where the backend can alias
    it (the one exception to tensors being immutable: writing the buffer changes the tensor),
    and a conversion that would need a copy or a cast raises CopyError (a ValueError)."""
    if copy is not None and copy.__class__ is not bool:
        copy = valid.flag(copy, "asarray", "copy")
    if device is not None:
        t = asarray(obj, dtype=dtype, copy=copy, backend=backend)
        if copy is False and isinstance(device, str) and device != t.device:
            raise CopyError(f"asarray(copy=False): the data is on device '{t.device}' of backend "
                            f"'{t.backend}', and placing it on '{device}' copies it; pass "
                            "copy=None (or True), or the device it is on.")
        return on_device(t, device, "asarray")
    target = (start_backend(valid.backend_name(backend, "asarray")) if backend is not None
              else (backend_var.get() or active_backend()))
    dt = None if dtype is None else valid.dtype(dtype, "asarray")
    if isinstance(obj, Tensor):
        t = obj
        if t._backend is not target:
            if copy is False and not target.transform:  # (a transform's level takes t as it is)
                raise CopyError(f"asarray(copy=False): the tensor is on backend '{t.backend}', and "
                                f"moving it to backend '{target.name}' copies it; pass copy=None "
                                "(or True), or convert on its own backend.")
            if target.dtypes is not None and t._dtype not in target.dtypes:
                check_held(target, t._dtype if dt is None else dt, "asarray")
                t = astype(t, dt)  # (cast where it is, to a dtype the target holds)
            t, copy = wrap(to_native(t, target), target, t._dtype), None  # (a copy already)
        if dt is not None and dt is not t._dtype:
            if copy is False:
                raise CopyError(f"asarray(copy=False): casting the {t._dtype.name} tensor to "
                                f"{dt.name} makes a new buffer; pass copy=None (or True), or "
                                f"dtype={t._dtype.name}.")
            return astype(t, dt)  # (a new buffer)
        return _copied(t) if copy else t
    if copy is False:
        return _shared(obj, dt, target)
    arr = _host_array(obj, dt)
    try:
        got = from_numpy_dtype(arr.dtype)  # refuse unsupported dtypes with a clear message
    except DTypeError as exc:
        raise DTypeError(f"asarray: {exc}") from None
    held = target.dtypes
    if held is not None and got not in held:
        check_held(target, got, "asarray")  # (raises)
    return wrap(target.from_numpy(arr), target)  # (from_numpy copies)


def _shared(obj: Any, dt: DType | None, target: Backend) -> Tensor:
    """asarray(copy=False) of a non-Tensor: a Tensor aliasing obj's buffer (through the backend's
    ``from_dlpack(copy=False)``), or CopyError saying why that cannot be."""
    what = type(obj).__name__
    if not hasattr(obj, "__dlpack__"):
        try:  # a buffer without DLPack (a memoryview of a bytearray): numpy aliases it
            obj = np.asarray(obj, copy=False) if not isinstance(obj, (np.generic, *_SCALARS)) else None
        except (ValueError, TypeError):
            obj = None
        if obj is None:
            raise CopyError(f"asarray(copy=False): a {what} has no buffer to share: its values "
                            "must be copied into a new one; pass copy=None (or True), or a numpy "
                            "array or another array with __dlpack__.")
    if isinstance(obj, np.ndarray):
        if not obj.dtype.isnative:
            raise CopyError(f"asarray(copy=False): the numpy array's byte order is not the "
                            f"machine's ({obj.dtype.str}), and tensors hold native-order data: "
                            "it must be copied; pass copy=None (or True).")
        try:
            got = from_numpy_dtype(obj.dtype)
        except DTypeError as exc:
            raise DTypeError(f"asarray: {exc}") from None
        _same_dtype(got, dt)
        check_held(target, got, "asarray")
    try:
        native = target.from_dlpack(obj, copy=False)
    except TensorplugError:
        raise
    except (BufferError, ValueError, RuntimeError, TypeError, AttributeError) as exc:
        shape = getattr(obj, "shape", "?")
        raise CopyError(f"asarray(copy=False): backend '{target.name}' cannot share the memory of "
                        f"this {what} (shape {shape}, dtype {getattr(obj, 'dtype', '?')}): "
                        f"{str(exc).rstrip('.')}. Pass copy=None (or True) to copy it.") from exc
    got = target.dtype_of(native)
    _same_dtype(got, dt)
    check_held(target, got, "asarray")
    return wrap(native, target, got)


def _same_dtype(got: DType, dt: DType | None) -> None:
    if dt is not None and dt is not got:
        raise CopyError(f"asarray(copy=False): casting the {got.name} data to {dt.name} makes a "
                        f"new buffer; pass copy=None (or True), or dtype={got.name}.")


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Tensor:
    """x converted to `dtype` (the same tensor if the dtype already matches: tensors are
    immutable, so `copy` changes nothing), on `device` if given."""
    if device is not None:
        return device_put(astype(x, dtype), device)
    x = asarray(x)
    dt = dtype if dtype.__class__ is DType else valid.dtype(dtype, "astype")
    if x._dtype is dt:
        return x
    if x._dtype.is_complex:
        cast_target(x._dtype, dt, "astype")
    if x._backend.dtypes is not None:
        check_held(x._backend, dt, "astype")
    return _CAST((x,), {"dtype": dt})


_scalars: dict[tuple[Any, ...], Tensor] = {}  # on backends that reuse scalars
_SCALARS_LIMIT = 4096


def scalar_tensor(value: Any, dtype: DType, op: str | None = None) -> Tensor:
    """A 0-d tensor of `dtype` holding the Python scalar `value`, on the active backend (a value
    that does not fit is refused, naming `op`)."""
    backend = backend_var.get() or active_backend()
    reuse = backend.reuses_scalars
    if reuse:
        key = (value.__class__, value, dtype, backend)
        hit = _scalars.get(key)
        # (-0.0 equals 0.0, so its key finds 0.0's tensor: only a nonzero value or +0 takes it)
        if hit is not None and (value or math.copysign(1.0, value) > 0):
            return hit
    if backend.dtypes is not None:
        check_held(backend, dtype, op or "asarray")
    try:
        host = np.asarray(value, dtype=dtype.numpy)
    except OverflowError:
        raise DTypeError(
            f"{f'{op}: ' if op else ''}the Python scalar {value!r} does not fit in {dtype.name}; cast "
            "the tensor to a wider dtype first, e.g. x.astype(tp.int64)."
        ) from None
    t = wrap(backend.from_numpy(host), backend, dtype)
    # NaN never equals itself and -0.0 equals 0.0: neither is a usable key (nor is a complex
    # value, whose parts can be either)
    if (reuse and value.__class__ is not complex and value == value
            and not (value == 0 and math.copysign(1.0, value) < 0)):
        if len(_scalars) >= _SCALARS_LIMIT:
            _scalars.clear()
        _scalars[key] = t
    return t


def convert_pair(x: Any, y: Any, op: str | None = None) -> tuple[Tensor, Tensor]:
    """Two op arguments as Tensors of one promoted dtype (Python scalars are weak); `op` names
    the op in the error for a Python scalar its dtype cannot hold."""
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):
            if x._dtype is y._dtype:
                return x, y
            dt = result_type(x._dtype, y._dtype)
            return astype(x, dt), astype(y, dt)
        if isinstance(y, _SCALARS):
            dt = scalar_dtype(y, x._dtype)
            return (x if dt is x._dtype else astype(x, dt)), scalar_tensor(y, dt, op)
        y = asarray(y)
        dt = result_type(x._dtype, y._dtype)
        return astype(x, dt), astype(y, dt)
    if isinstance(y, Tensor):
        if isinstance(x, _SCALARS):
            dt = scalar_dtype(x, y._dtype)
            return scalar_tensor(x, dt, op), (y if dt is y._dtype else astype(y, dt))
        x = asarray(x)
        dt = result_type(x._dtype, y._dtype)
        return astype(x, dt), astype(y, dt)
    x, y = asarray(x), asarray(y)
    if x._dtype is y._dtype:
        return x, y
    dt = result_type(x._dtype, y._dtype)
    return astype(x, dt), astype(y, dt)


def to_float(x: Any) -> Tensor:
    """x as a Tensor of a floating dtype (integers and bools go to the default float; complex
    tensors stay as they are)."""
    if isinstance(x, Tensor) and x._dtype.is_inexact:
        return x
    x = asarray(x)
    if not x._dtype.is_inexact:
        return _CAST((x,), {"dtype": default_float})
    return x


def to_backend(x: Tensor, backend: str) -> Tensor:
    """`x` moved to backend `backend` (started if needed); the same values, shape and dtype."""
    return asarray(x, backend=valid.backend_name(backend, "to_backend"))


_CAST = caller("Cast")
_COPY = caller("Copy")


def _copied(t: Tensor) -> Tensor:
    """t in a buffer of its own (the Copy kernel, so that it differentiates); on a backend
    without Copy (written before it), through the host, where ``from_numpy`` copies."""
    try:
        return _COPY((t,))
    except KernelNotFoundError:  # (raised before anything ran)
        host = np.asarray(t._backend.to_numpy(t._data))
        return wrap(t._backend.from_numpy(host), t._backend, t._dtype)


def device_put(x: Any, where: Any) -> Any:
    """`x` (a tensor, or nested lists, tuples and dicts of them) placed on `where`: a device
    name from ``tp.devices()`` such as ``'cpu:0'``, or an object of the tensor's backend (on
    jax, a ``jax.Device`` or a ``jax.sharding.Sharding``). Returns new tensors (a Variable is
    placed with ``v.assign(tp.device_put(v, where))``); differentiable (the identity)."""
    leaves, structure = tree_flatten(x)
    return tree_unflatten(structure, [put(leaf if isinstance(leaf, Tensor) else asarray(leaf), where)
                                       for leaf in leaves])
