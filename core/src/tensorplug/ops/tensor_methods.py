"""Tensor's methods that are ops (as JAX's ``array_methods``): the Python operators, ``x[key]``,
``x.at[...]``, ``.T`` and ``.mT``, ``astype``, ``to``, ``to_device``, numpy's ufuncs, DLPack and
pickling. Ops take and return Tensors, so ``core/tensor.py`` cannot import them without an
import circle: ``attach_methods`` sets them on the class instead, once, when ``tensorplug`` is
imported (``tensorplug/__init__.py`` calls it), and the class body declares them for type
checkers. An operator is the op itself (``Tensor.__add__ is tp.add``): ``x + y`` calls
``tp.add(x, y)`` with no frame between."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families._common.convert import astype, device_put, to_backend
from tensorplug.families.elementwise import bitwise
from tensorplug.families.elementwise import ops as elementwise
from tensorplug.families.indexing.ops import getitem
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import matrix_transpose, permute_dims
from tensorplug.io.pickling import reduce_tensor
from tensorplug.ops import dlpack
from tensorplug.ops._ufuncs import array_ufunc
from tensorplug.ops._updates import At, immutable_error

__all__ = ["attach_methods"]

#: the binary operators: ``x <op> y`` is ``op(x, y)``; the reflected ``y <op> x`` is ``op(y, x)``
BINARY: dict[str, Callable[[Any, Any], Tensor]] = {
    "add": elementwise.add, "sub": elementwise.subtract, "mul": elementwise.multiply,
    "truediv": elementwise.divide, "floordiv": elementwise.floor_divide, "mod": elementwise.remainder,
    "pow": elementwise.pow, "matmul": matmul,
    # bitwise on integer tensors; on bool tensors (one bit each) the same is the logical op
    "and": bitwise.bitwise_and, "or": bitwise.bitwise_or, "xor": bitwise.bitwise_xor,
    "lshift": bitwise.bitwise_left_shift, "rshift": bitwise.bitwise_right_shift,
}
#: the comparisons (a bool tensor) and the unary operators, by their method names
OTHERS: dict[str, Callable[..., Tensor]] = {
    "__eq__": elementwise.equal, "__ne__": elementwise.not_equal, "__lt__": elementwise.less,
    "__le__": elementwise.less_equal, "__gt__": elementwise.greater, "__ge__": elementwise.greater_equal,
    "__neg__": elementwise.negative, "__abs__": elementwise.abs, "__invert__": bitwise.bitwise_invert,
    "__getitem__": getitem,
}


def _reflected(op: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    def method(self: Tensor, other: Any) -> Tensor:
        return op(other, self)

    method.__name__ = method.__qualname__ = f"reflected_{op.__name__}"
    method.__doc__ = f"``{op.__name__}(other, self)``."
    return method


def _transpose(self: Tensor) -> Tensor:
    """``Tensor.T`` (declared, with its contract, in ``core/tensor.py``)."""
    if self.ndim != 2:
        raise ShapeError(f"Tensor.T needs a 2-d tensor, got shape {self.shape}; use .mT or "
                            "tp.permute_dims.")
    return permute_dims(self, (1, 0))


def _astype(self: Tensor, dtype: Any, *, copy: bool = True, device: Any = None) -> Tensor:
    """``Tensor.astype`` (declared, with its contract, in ``core/tensor.py``)."""
    return astype(self, dtype, copy=copy, device=device)


def _to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """``Tensor.to_device`` (declared, with its contract, in ``core/tensor.py``)."""
    if stream is not None:
        raise ArgumentError("to_device: stream must be None; tensorplug's backends order their "
                            "work themselves.")
    return device_put(self, device)


def _array_ufunc(self: Tensor, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__`` (declared, with its contract, in ``core/tensor.py``)."""
    return array_ufunc(ufunc, method, inputs, kwargs)


def _dlpack(self: Tensor, *, stream: Any = None, max_version: tuple[int, int] | None = None,
            dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
    """``Tensor.__dlpack__`` (declared, with its contract, in ``core/tensor.py``)."""
    return dlpack.to_dlpack(self, stream, max_version, dl_device, copy)


def _setitem(self: Tensor, key: Any, value: Any, /) -> None:
    """``Tensor.__setitem__`` (declared, with its contract, in ``core/tensor.py``)."""
    raise immutable_error(key)


def _at(self: Tensor) -> At:
    """``Tensor.at`` (declared, with its contract, in ``core/tensor.py``)."""
    return At(self)


#: the other methods, by name
METHODS: dict[str, Any] = {
    "T": property(_transpose),
    "mT": property(matrix_transpose),
    "at": property(_at),
    "astype": _astype,
    "to": to_backend,
    "to_device": _to_device,
    "__array_ufunc__": _array_ufunc,
    "__dlpack__": _dlpack,
    "__dlpack_device__": dlpack.dlpack_device,
    "__setitem__": _setitem,
    "__reduce__": reduce_tensor,
}


def attach_methods(cls: type[Tensor]) -> None:
    """Set the methods above on `cls` (Tensor)."""
    for name, op in BINARY.items():
        setattr(cls, f"__{name}__", op)
        setattr(cls, f"__r{name}__", _reflected(op))
    for name, method in {**OTHERS, **METHODS}.items():
        setattr(cls, name, method)

